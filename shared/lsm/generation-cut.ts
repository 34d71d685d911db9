/**
 * Cuts a sealed WAL range into generations. A long backlog becomes several generations of
 * at most `maxBytes` / `maxRows` (and `maxEntries`) each, never one oversized one; a single
 * entry larger than the limit still forms a generation of its own.
 *
 * The generations tile the range `(after, through]` with no gap: each starts right after the
 * one before. In a shard's own lane every seq of the range is an entry or a hole, so each
 * generation ends on its last entry. In a table lane (docs/table-wal-lane.md, §4) the entries
 * are the shard's members only, and the seqs of other shards' entries lie inside the ranges;
 * the last generation ends at `through`, so the next seal starts past them.
 */
import { packMembers } from './generation-members.ts';
import type { SealedGeneration } from './shard-manifest.ts';

export interface SealableEntry {
  seq: number;
  bytes: number;
  rows: number;
  /** In a table lane: where the shard's section is in the entry, for the generation's members. */
  section?: { start: number; end: number; schemaVersion: number };
}

export function cutGenerations(input: {
  /** Ascending, every one in `(after, through]`. */
  entries: SealableEntry[];
  after: number;
  through: number;
  firstGeneration: number;
  maxBytes: number;
  maxRows: number;
  maxEntries?: number;
  sealedAt: string;
}): SealedGeneration[] {
  const maxEntries = input.maxEntries ?? Number.POSITIVE_INFINITY;
  const groups: SealableEntry[][] = [];
  let current: SealableEntry[] = [];
  let bytes = 0;
  let rows = 0;
  for (const entry of input.entries) {
    const fits =
      current.length > 0 &&
      current.length < maxEntries &&
      bytes + entry.bytes <= input.maxBytes &&
      rows + entry.rows <= input.maxRows;
    if (!fits && current.length > 0) {
      groups.push(current);
      current = [];
      bytes = 0;
      rows = 0;
    }
    current.push(entry);
    bytes += entry.bytes;
    rows += entry.rows;
  }
  if (current.length > 0) groups.push(current);
  let from = input.after + 1;
  return groups.map((members, i) => {
    const walTo = i === groups.length - 1 ? input.through : members.at(-1)!.seq;
    const generation = toGeneration(input.firstGeneration + i, from, walTo, members, input.sealedAt);
    from = walTo + 1;
    return generation;
  });
}

function toGeneration(
  generation: number,
  walFrom: number,
  walTo: number,
  entries: SealableEntry[],
  sealedAt: string,
): SealedGeneration {
  const sealed: SealedGeneration = {
    generation,
    walFrom,
    walTo,
    walRows: entries.reduce((sum, e) => sum + e.rows, 0),
    walBytes: entries.reduce((sum, e) => sum + e.bytes, 0),
    sealedAt,
  };
  if (!entries.every((e) => e.section)) return sealed;
  const members = entries.map(({ seq, rows, section }) => ({ seq, rows, ...section! }));
  return { ...sealed, members: packMembers(walFrom - 1, members) };
}

/**
 * Which pending runs a search reads as one table in memory (pending-tables.ts). Each WAL
 * entry is a table of its own, and so is each L0 generation of a shard's newest, still
 * open block; the generations of a closed block — all `BLOCK_GENERATIONS` of its numbers
 * committed — are one table, so a search of many pending generations makes a few LanceDB
 * queries rather than one per generation (each costs milliseconds whatever its size).
 * A shard's pending generations are the committed ones above the merge watermark, one
 * contiguous range (I3), so a closed block's pending part is its generations from the
 * lowest one pending: the block and that lowest generation name its rows exactly, and
 * the table is cached by them. A merge that takes part of a block makes a new one of the rest.
 */
import type { ReadSnapshot } from '../read/read-snapshot.ts';

export const BLOCK_GENERATIONS = 8;

export interface PendingGroup {
  /** Names exactly the group's rows: its table's cache key. */
  key: string;
  /** The snapshot's runs it holds, by index. */
  runs: number[];
}

export function pendingGroups(tableName: string, snapshot: ReadSnapshot): PendingGroup[] {
  const newest = new Map<number, number>();
  for (const { shard, generation } of snapshot.sources) {
    if (generation !== null) newest.set(shard, Math.max(newest.get(shard) ?? -1, generation));
  }
  const groups: PendingGroup[] = [];
  const blocks = new Map<string, number[]>();
  snapshot.sources.forEach(({ key, shard, generation }, r) => {
    const block = generation === null ? null : Math.floor(generation / BLOCK_GENERATIONS);
    const closed = block !== null && (block + 1) * BLOCK_GENERATIONS - 1 <= newest.get(shard)!;
    if (!closed) {
      groups.push({ key, runs: [r] });
      return;
    }
    const id = `${shard}/${block}`;
    blocks.set(id, [...(blocks.get(id) ?? []), r]);
  });
  for (const [id, runs] of blocks) {
    const lowest = Math.min(...runs.map((r) => snapshot.sources[r]!.generation!));
    groups.push({ key: `${tableName}/shards/${id}/block-from-${lowest}`, runs });
  }
  return groups;
}

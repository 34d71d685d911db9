/**
 * Where the durable, gap-free prefix of a shard's WAL ends. A seq that was allocated but
 * whose entry is missing is either still being written (wait for it) or abandoned (its
 * writer died or gave up): the seal then declares it a hole with a tombstone, so the shard
 * never stalls behind a dead writer and never skips a seq silently.
 */
import type { ObjectMeta, ObjectStore } from '../store/object-store.ts';
import { numberFromKey, tableWalKey, tableWalPrefix, walKey, walPrefix } from '../table/paths.ts';

export interface WalObject {
  seq: number;
  bytes: number;
}

/** Where a WAL lane's objects are: a shard's own lane, or its table's (docs/table-wal-lane.md). */
export interface LaneLocation {
  prefix: string;
  key(seq: number): string;
}

export function shardLane(table: string, shard: number): LaneLocation {
  return { prefix: walPrefix(table, shard), key: (seq) => walKey(table, shard, seq) };
}

export function tableLane(table: string): LaneLocation {
  return { prefix: tableWalPrefix(table), key: (seq) => tableWalKey(table, seq) };
}

/** A shard's own WAL entries after `after`, in seq order. */
export function listWalAfter(
  store: ObjectStore,
  table: string,
  shard: number,
  after: number,
  signal?: AbortSignal,
): Promise<WalObject[]> {
  return listLaneAfter(store, shardLane(table, shard), after, signal);
}

/** The lane's objects (entries and holes) after `after`, and through `through` if given, in seq order. */
export async function listLaneAfter(
  store: ObjectStore,
  lane: LaneLocation,
  after: number,
  signal?: AbortSignal,
  through = Number.POSITIVE_INFINITY,
): Promise<WalObject[]> {
  const entries: WalObject[] = [];
  const startAfter = after > 0 ? lane.key(after) : undefined;
  pages: for await (const page of store.list(lane.prefix, { startAfter, signal })) {
    for (const meta of page) {
      const entry = toWalObject(meta);
      if (entry && entry.seq > through) break pages;
      if (entry && entry.seq > after) entries.push(entry);
    }
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

function toWalObject(meta: ObjectMeta): WalObject | null {
  const seq = numberFromKey(meta.key);
  return seq === null ? null : { seq, bytes: meta.size };
}

export interface FrontierPlan {
  /** Highest seq such that every seq from `after + 1` through it is present or a hole. */
  frontier: number;
  /** Missing seqs below the frontier that must get a tombstone. */
  holes: number[];
  /** When the first missing seq that is still in flight becomes a hole (ms epoch), if any. */
  retryAt: number | null;
}

/**
 * Plans the frontier over `present` (entries after `after`). A missing seq is a hole when
 * its in-flight mark is older than `holeTimeoutMs`, or when Redis has no mark for it: the
 * writer clears its mark only after its put landed, so a missing entry without a mark has
 * no live writer that could still be acked (a late put then fails against the tombstone).
 */
export function planFrontier(input: {
  after: number;
  present: WalObject[];
  inflightSince: Map<number, number>;
  now: number;
  holeTimeoutMs: number;
}): FrontierPlan {
  const presentSeqs = new Set(input.present.map((e) => e.seq));
  const highest = input.present.at(-1)?.seq ?? input.after;
  const holes: number[] = [];
  let frontier = input.after;
  for (let seq = input.after + 1; seq <= highest; seq++) {
    if (!presentSeqs.has(seq)) {
      const since = input.inflightSince.get(seq);
      if (since !== undefined && input.now - since < input.holeTimeoutMs) {
        return { frontier, holes, retryAt: since + input.holeTimeoutMs };
      }
      holes.push(seq);
    }
    frontier = seq;
  }
  return { frontier, holes, retryAt: null };
}

/** The seqs in (after, highest present] that are missing: candidates for holes. */
export function missingSeqs(after: number, present: WalObject[]): number[] {
  const presentSeqs = new Set(present.map((e) => e.seq));
  const highest = present.at(-1)?.seq ?? after;
  const missing: number[] = [];
  for (let seq = after + 1; seq <= highest; seq++) if (!presentSeqs.has(seq)) missing.push(seq);
  return missing;
}

/**
 * What a seal needs of the WAL lane it seals from (docs/design.md, "Seal"). A shard's own lane
 * holds only its entries; a table lane (docs/table-wal-lane.md, §4) holds every shard's, and a
 * shard's seal takes its sections of them. The seal's plan — frontier, holes, cut, commit — is
 * the same over both; only where the entries are, what of them is the shard's, and the Redis
 * bookkeeping differ.
 */
import pLimit from 'p-limit';
import type { InflightMarks } from '../redis/inflight-marks.ts';
import type { SealCounters } from '../redis/seal-counters.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import { listWalAfter, type WalObject } from '../wal/frontier.ts';
import { decodeWalEntry } from '../wal/wal-entry.ts';
import type { SealableEntry } from './generation-cut.ts';

export interface SealLane {
  /** At most this many entries a generation; none when absent. */
  maxEntries?: number;
  /** The lane's objects after `after`, in seq order: all of them, or up to a bound (`bounded`). */
  listAfter(after: number, signal?: AbortSignal): Promise<WalObject[]>;
  /**
   * Whether a listing after `after` that returned `listed` may have stopped short of the
   * lane's end: the seal then asks for the next one at once.
   */
  bounded?(after: number, listed: readonly WalObject[]): boolean;
  /** After a seal commit: seals other shards of the lane may owe (a table lane's idle shards). */
  sealOthers?(sealedThrough: number): Promise<void>;
  /** Allocation times of the in-flight seqs among `seqs`. */
  inflightSince(seqs: number[]): Promise<Map<number, number>>;
  /** Where the object of `seq` is, and so where its hole goes. */
  key(seq: number): string;
  /** The shard's entries among `objects` (all at or below the frontier), with their sizes and rows. */
  sealable(objects: WalObject[], signal?: AbortSignal): Promise<SealableEntry[]>;
  /** After a seal commit: the counters of backpressure and the marks of what it sealed. */
  recordSeal(sealed: {
    entries: SealableEntry[];
    sealedCount: number;
    manifestVersion: number;
    sealedThrough: number;
  }): Promise<void>;
  /** `SeqAllocation.endSeal` for this shard. */
  endSeal(
    sealedThrough: number,
    options: { sealDelayMs: number; liveSince: number },
  ): Promise<{ wanted: boolean; oldestLiveSince: number | null }>;
  disarmSeal(): Promise<void>;
}

export interface ShardLaneDeps {
  store: ObjectStore;
  seqAllocation: SeqAllocation;
  inflightMarks: InflightMarks;
  sealCounters: SealCounters;
}

/** Entries whose row count Redis lacks, read at once. */
const ROW_COUNT_READS = 32;

/** A shard's own lane: every object of it is the shard's entry or hole. */
export function shardSealLane(deps: ShardLaneDeps, table: string, shard: number): SealLane {
  return {
    listAfter: (after, signal) => listWalAfter(deps.store, table, shard, after, signal),
    inflightSince: (seqs) => deps.inflightMarks.since(table, shard, seqs),
    key: (seq) => walKey(table, shard, seq),
    sealable: (objects) => withRowCounts(deps, table, shard, objects),
    recordSeal: (sealed) =>
      deps.sealCounters.recordSeal(table, shard, {
        bytes: sealed.entries.reduce((sum, e) => sum + e.bytes, 0),
        sealedCount: sealed.sealedCount,
        manifestVersion: sealed.manifestVersion,
        seqs: sealed.entries.map((e) => e.seq),
      }),
    endSeal: (sealedThrough, options) => deps.seqAllocation.endSeal(table, shard, sealedThrough, options),
    disarmSeal: () => deps.seqAllocation.disarmSeal(table, shard),
  };
}

/** Entries with their row counts: from Redis, else from the entry itself. */
async function withRowCounts(
  deps: ShardLaneDeps,
  table: string,
  shard: number,
  objects: WalObject[],
): Promise<SealableEntry[]> {
  const known = await deps.sealCounters.walRows(
    table,
    shard,
    objects.map((o) => o.seq),
  );
  // Side by side: on S3 each read is a request's latency, and the newest entries' completions
  // have often not reached Redis yet when the seal lists them.
  const limit = pLimit(ROW_COUNT_READS);
  return Promise.all(
    objects.map(async (object) => ({
      seq: object.seq,
      bytes: object.bytes,
      rows:
        known.get(object.seq) ??
        (await limit(() => countRows(deps.store, walKey(table, shard, object.seq), object.seq))),
    })),
  );
}

async function countRows(store: ObjectStore, key: string, seq: number): Promise<number> {
  const object = await store.get(key);
  if (!object) return 0;
  const entry = decodeWalEntry(object.body, seq);
  return entry.kind === 'hole' ? 0 : entry.table.numRows;
}

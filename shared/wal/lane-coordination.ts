/**
 * What the WAL writer needs of the lane it writes to, beyond the store: how an entry is encoded
 * and keyed, and the lane's Redis state — allocation, completions, abandonment, re-seeding
 * (docs/design.md, "Write"). A shard's own lane holds one shard's writes; a table lane
 * (docs/table-wal-lane.md, §3) holds a request's writes of every shard it touches, in one
 * entry at one seq. The writer's grouping, pipelining, floors and puts are the same for both.
 */
import type { TableSchema } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import type { AllocationLimits, Completion, SeqAllocation } from '../redis/seq-allocation.ts';
import { ShardPoisonedError } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import type { TableDrops } from '../table/table-drops.ts';
import type { ManifestReader } from './manifest-reader.ts';
import { syncShard } from './shard-sync.ts';
import { encodeWalEntry, type WalWrite, writeRows } from './wal-entry.ts';

/** A request's writes to one lane: one per shard it touches (a shard's own lane: just that shard). */
export type LaneWrite = ReadonlyMap<number, WalWrite>;

/** What a call that carried completions did besides its answer, whatever the answer. */
export interface LaneCounts {
  /** Shards whose seal the call armed: the writer requests each once its put has answered. */
  armed: readonly number[];
  /** Unsealed bytes of shards the call counted, for the writer's urgent seals. */
  unsealedBytes: ReadonlyMap<number, number>;
}

/** What the allocation of a seq answered, in the writer's terms. */
export type LaneAllocated = LaneCounts & LaneAnswer;

export type LaneAnswer =
  | { kind: 'ok'; seq: number }
  /** Shards that take no write now (poisoned, behind), each with the error its writers get. */
  | { kind: 'refused'; errors: ReadonlyMap<number, SluiceError> }
  | { kind: 'dropped' }
  /** The lane's copy of the drop flag is absent: `fillDropFlag`, then allocate again. */
  | { kind: 'dropUnknown' }
  /** Redis does not know the lane: `sync`, then allocate again. */
  | { kind: 'uninitialized' };

export interface EncodedEntry<C> {
  body: Uint8Array;
  rows: number;
  /** What Redis is told once the entry at `seq` landed. */
  completion(seq: number): C;
}

export interface LaneCoordination<C> {
  key(seq: number): string;
  /** The shard whose manifest serves as the lane's seq floor for a group touching `shards`. */
  floorShard(shards: readonly number[]): number;
  encode(schema: TableSchema, writes: readonly LaneWrite[], entryId: string): EncodedEntry<C>;
  allocate(
    shards: readonly number[],
    limits: AllocationLimits,
    floor: number,
    extras: { completions: readonly C[]; sealDelayMs: number },
  ): Promise<LaneAllocated>;
  complete(completions: readonly C[], sealDelayMs: number): Promise<LaneCounts>;
  /** The writer of `seq` gave up: a seal may declare it a hole without waiting. */
  abandon(seq: number): Promise<void>;
  fillDropFlag(): Promise<void>;
  /** Re-seeds the lane's Redis state from the store. */
  sync(): Promise<void>;
}

export interface ShardCoordinationDeps {
  store: ObjectStore;
  manifests: ManifestReader;
  seqAllocation: SeqAllocation;
  drops: TableDrops;
}

const BACKPRESSURE_RETRY_AFTER_SECONDS = 1;

/** A shard's own lane: one shard's writes, one entry per group. */
export function shardCoordination(
  deps: ShardCoordinationDeps,
  table: string,
  shard: number,
): LaneCoordination<Completion> {
  return {
    key: (seq) => walKey(table, shard, seq),
    floorShard: () => shard,
    encode(schema, writes, entryId) {
      const own = writes.map((w) => w.get(shard)!);
      const body = encodeWalEntry(schema, own, entryId);
      const rows = own.reduce((sum, w) => sum + writeRows(w), 0);
      return { body, rows, completion: (seq) => ({ seq, rows, bytes: body.byteLength }) };
    },
    async allocate(_shards, limits, floor, extras) {
      const allocation = await deps.seqAllocation.allocate(table, shard, limits, floor, extras);
      switch (allocation.kind) {
        case 'ok':
          return {
            kind: 'ok',
            seq: allocation.seq,
            armed: allocation.armedSeal ? [shard] : [],
            unsealedBytes: new Map([[shard, allocation.unsealedBytes]]),
          };
        case 'poisoned':
          return { ...NO_COUNTS, ...refused(shard, new ShardPoisonedError(table, shard, allocation.poison)) };
        case 'backpressure':
          return {
            ...NO_COUNTS,
            ...refused(shard, backpressureError(table, shard, allocation.reason, allocation.value)),
          };
        default:
          return { ...NO_COUNTS, ...allocation };
      }
    },
    async complete(completions, sealDelayMs) {
      const done = await deps.seqAllocation.complete(table, shard, completions, sealDelayMs);
      return { armed: done.armedSeal ? [shard] : [], unsealedBytes: new Map([[shard, done.unsealedBytes]]) };
    },
    abandon: (seq) => deps.seqAllocation.abandon(table, shard, seq),
    fillDropFlag: () => deps.drops.fillShardFlag(table, shard),
    sync: () => syncShard(deps, table, shard),
  };
}

/** A shard's own lane arms its seal only on an allocation that succeeds. */
const NO_COUNTS: LaneCounts = { armed: [], unsealedBytes: new Map() };

function refused(shard: number, error: SluiceError): LaneAnswer {
  return { kind: 'refused', errors: new Map([[shard, error]]) };
}

export function backpressureError(
  table: string,
  shard: number,
  reason: 'generations' | 'bytes',
  value: number,
): SluiceError {
  return new SluiceError('BACKPRESSURE', `shard ${shard} of table ${table} is behind; retry later`, {
    table,
    shard,
    reason: reason === 'bytes' ? 'unsealed bytes' : 'unflushed generations',
    value,
    retryAfterSeconds: BACKPRESSURE_RETRY_AFTER_SECONDS,
  });
}

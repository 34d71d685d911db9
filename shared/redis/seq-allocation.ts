/**
 * A shard's seq counter in Redis: allocation (which also applies earlier completions, checks
 * the drop and poison flags and backpressure, and arms the seal), completion, abandonment,
 * and the re-seeding of the shard's state from the store (`sync`, docs/design.md,
 * "Redis keys and queues"). Redis only speeds things up; the store's conditional puts
 * catch whatever a lost or stale Redis gets wrong.
 *
 * `sync` lives here because the seq floor is what its script exists for: without it a Redis
 * that lost its state would hand out seqs the store has seen. The same script also seeds the
 * seal counters and the cached poison, so it lists the shard in the poison cache's index
 * first, as that index may over-name a shard but never miss one.
 */
import type { PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { runLuaCommand } from './lua-commands.ts';
import type { PoisonCache } from './poison-cache.ts';
import { ALLOCATE, COMPLETE, END_SEAL, SYNC } from './shard-commands.ts';
import { type ShardKeys, shardKeys } from './shard-keys.ts';

export type Allocation =
  | {
      kind: 'ok';
      seq: number;
      unsealedBytes: number;
      /**
       * This call armed the shard's seal: its writer must request one once its put has
       * answered (an earlier entry whose completion it carried may need it too).
       */
      armedSeal: boolean;
    }
  | { kind: 'uninitialized' }
  | { kind: 'dropped' }
  /** The shard's copy of the drop flag is absent: fill it from the store (`TableDrops.fillShardFlag`). */
  | { kind: 'dropUnknown' }
  | { kind: 'poisoned'; poison: PoisonRecord }
  | { kind: 'backpressure'; reason: 'generations' | 'bytes'; value: number };

/** A WAL entry that became durable: it leaves the in-flight marks and counts as unsealed. */
export interface Completion {
  seq: number;
  rows: number;
  bytes: number;
}

export interface AllocationLimits {
  maxUnflushedGenerations: number;
  maxUnsealedBytes: number;
}

export interface AllocationExtras {
  /** Completions of the shard's earlier entries, applied first whatever the answer. */
  completions?: readonly Completion[];
  /** The table's `sealDelayMs`: an armed seal stays armed for it and a grace (`armMs`). */
  sealDelayMs: number;
}

/** What the store knows of a shard, for `SeqAllocation.sync`. */
export interface StoreShardState {
  seqFloor: number;
  sealedCount: number;
  manifestVersion: number;
  unsealedBytes: number;
  poison: PoisonRecord | null;
}

/** An armed seal that nobody requested (its requester died) re-arms after the seal delay and this. */
export const SEAL_ARM_GRACE_MS = 2_000;

/** How long an arm lasts: the seal delay it waits for, and a grace for the request to come. */
export function armMs(sealDelayMs: number): number {
  return sealDelayMs + SEAL_ARM_GRACE_MS;
}

export class SeqAllocation {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly poisonCache: PoisonCache,
  ) {}

  private keys(table: string, shard: number): ShardKeys {
    return shardKeys(this.prefix, table, shard);
  }

  /**
   * Allocates the next seq and marks it in flight, unless the shard is poisoned or
   * overloaded. `seqFloor` is the highest seq the store has sealed: a Redis restored from an
   * old snapshot would otherwise hand out seqs whose entries GC already deleted, and a write
   * there would be acked below the sealed range, where no seal or read ever looks.
   * The first allocation after a seal ended with nothing left to seal arms the next seal
   * (see `endSeal`). The shard's copy of the drop flag is checked here, so a write asks
   * Redis nothing else.
   */
  async allocate(
    table: string,
    shard: number,
    limits: AllocationLimits,
    seqFloor: number,
    extras: AllocationExtras,
  ): Promise<Allocation> {
    const [status, ...rest] = await runLuaCommand(this.redis, ALLOCATE, this.keys(table, shard), [
      Date.now(),
      limits.maxUnflushedGenerations,
      limits.maxUnsealedBytes,
      seqFloor,
      armMs(extras.sealDelayMs),
      ...completionArgs(extras.completions ?? []),
    ]);
    switch (status) {
      case 'OK':
        return {
          kind: 'ok',
          seq: Number(rest[0]),
          unsealedBytes: Number(rest[1]),
          armedSeal: rest[2] === '1',
        };
      case 'UNINITIALIZED':
        return { kind: 'uninitialized' };
      case 'DROPPED':
        return { kind: 'dropped' };
      case 'DROP_UNKNOWN':
        return { kind: 'dropUnknown' };
      case 'POISONED':
        return { kind: 'poisoned', poison: JSON.parse(rest[0] ?? '{}') as PoisonRecord };
      default:
        return {
          kind: 'backpressure',
          reason: rest[0] === 'bytes' ? 'bytes' : 'generations',
          value: Number(rest[1]),
        };
    }
  }

  /**
   * Applies completions on their own: the shard's unsealed bytes after them, and whether
   * this armed the seal (the caller must then request one).
   */
  async complete(
    table: string,
    shard: number,
    completions: readonly Completion[],
    sealDelayMs: number,
  ): Promise<{ unsealedBytes: number; armedSeal: boolean }> {
    const [unsealed, armed] = await runLuaCommand(this.redis, COMPLETE, this.keys(table, shard), [
      armMs(sealDelayMs),
      ...completionArgs(completions),
    ]);
    return { unsealedBytes: Number(unsealed), armedSeal: armed === '1' };
  }

  /**
   * A seal has ended with the shard's WAL sealed through `sealedThrough`. `wanted` while
   * something past it is still to seal — an entry whose completion counted, or a seq
   * allocated at or after `liveSince` and still in flight (`oldestLiveSince`, the oldest such
   * allocation): the seal stays armed and the caller must request the next one, so that
   * under steady writes the seals follow one another without any writer asking. Otherwise
   * the seal is disarmed and the next allocation or completion arms it.
   */
  async endSeal(
    table: string,
    shard: number,
    sealedThrough: number,
    options: { sealDelayMs: number; liveSince: number },
  ): Promise<{ wanted: boolean; oldestLiveSince: number | null }> {
    const [wanted, oldest] = await runLuaCommand(this.redis, END_SEAL, this.keys(table, shard), [
      sealedThrough,
      armMs(options.sealDelayMs),
      options.liveSince,
    ]);
    return { wanted: wanted === 1, oldestLiveSince: oldest === '' ? null : Number(oldest) };
  }

  /** A seal failed: the next allocation arms another at once rather than once the arm expires. */
  async disarmSeal(table: string, shard: number): Promise<void> {
    await this.redis.del(this.keys(table, shard).sealArmed);
  }

  /** The writer of `seq` gave up; the seal may declare the seq a hole without waiting. */
  async abandon(table: string, shard: number, seq: number): Promise<void> {
    await this.redis.zrem(this.keys(table, shard).inflight, String(seq));
  }

  /**
   * Brings the shard's Redis state in line with the store (first use, Redis restarted
   * empty or restored from a snapshot, counters drifted by a crash between a commit and its
   * bookkeeping). `seqFloor` must be at or above every seq the store has seen, so new seqs
   * never reuse one whose entry may still land; a collision is still caught by put-if-absent.
   */
  async sync(table: string, shard: number, state: StoreShardState): Promise<void> {
    if (state.poison) await this.poisonCache.index(table, shard);
    await runLuaCommand(this.redis, SYNC, this.keys(table, shard), [
      state.seqFloor,
      state.sealedCount,
      state.manifestVersion,
      state.unsealedBytes,
      state.poison ? JSON.stringify(state.poison) : '',
    ]);
  }

  /** Highest seq allocated so far, or null when Redis does not know the shard. */
  async allocatedThrough(table: string, shard: number): Promise<number | null> {
    const value = await this.redis.get(this.keys(table, shard).seq);
    return value === null ? null : Number(value);
  }
}

function completionArgs(completions: readonly Completion[]): number[] {
  return completions.flatMap((c) => [c.seq, c.rows, c.bytes]);
}

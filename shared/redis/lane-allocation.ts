/**
 * A table WAL lane's seq counter in Redis (docs/table-wal-lane.md, §2 "Seq allocation"):
 * one allocation per write whatever shards it touches — which also applies earlier
 * completions, checks the drop flag and every touched shard's poison and backpressure, and
 * arms their seals — completion, the end of a shard's seal, abandonment, and the re-seeding
 * of the lane's state from the store (`sync`). As on shard lanes, Redis only speeds things
 * up; the put-if-absent at the seq's key catches whatever a lost or stale Redis gets wrong.
 */
import type { PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { LANE_ALLOCATE, LANE_COMPLETE, LANE_END_SEAL, LANE_SYNC } from './lane-commands.ts';
import { type LaneKeys, laneKeys } from './lane-keys.ts';
import { type LaneCompletion, packSections } from './lane-sections.ts';
import { runLuaCommand } from './lua-commands.ts';
import type { PoisonCache } from './poison-cache.ts';
import { type AllocationLimits, armMs } from './seq-allocation.ts';

/**
 * What every allocation and completion did besides its answer: the completions it carried
 * count whatever the answer, so a refused writer still has seals to request.
 */
export interface LaneBookkeeping {
  /** Shards whose seal this call armed: the caller must request each once its put has answered. */
  armedShards: number[];
  /**
   * Unsealed bytes of the shards the call counted a section for and, on `ok`, of every
   * touched shard: the writer asks for an urgent seal of one near its generation's size.
   */
  unsealedBytes: Map<number, number>;
}

export type LaneAllocationResult = LaneBookkeeping &
  (
    | { kind: 'ok'; seq: number }
    | { kind: 'uninitialized' }
    | { kind: 'dropped' }
    /** The lane's drop flag is absent: fill it from the store, then allocate again. */
    | { kind: 'dropUnknown' }
    /** Every poisoned shard the write touches; the write is refused whole (I7, I19). */
    | { kind: 'poisoned'; byShard: Map<number, PoisonRecord> }
    /** The first touched shard over a limit (I18). */
    | { kind: 'backpressure'; shard: number; reason: 'generations' | 'bytes'; value: number }
  );

export interface LaneAllocationExtras {
  /** Completions of the lane's earlier entries, applied first whatever the answer. */
  completions?: readonly LaneCompletion[];
  /** The table's `sealDelayMs`: an armed seal stays armed for it and a grace (`armMs`). */
  sealDelayMs: number;
}

/** What the store knows of one shard of a lane, for `LaneAllocation.sync`. */
export interface StoreLaneShardState {
  shard: number;
  sealedCount: number;
  manifestVersion: number;
  unsealedBytes: number;
  sealedThrough: number;
  poison: PoisonRecord | null;
}

/** What the store knows of a lane, for `LaneAllocation.sync`. */
export interface StoreLaneState {
  /** At or above every seq present in the lane: no new seq reuses one whose entry may land. */
  seqFloor: number;
  shards: readonly StoreLaneShardState[];
}

export class LaneAllocation {
  /** `clock` is the time (ms) of in-flight marks and of seal arms, which live in a hash and cannot expire. */
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** The shards' own poison copies, which reads check (`assertShardOpen`): a sync heals both. */
    private readonly shardPoisonCache: PoisonCache,
    private readonly clock: () => number = Date.now,
  ) {}

  private keys(table: string): LaneKeys {
    return laneKeys(this.prefix, table);
  }

  /**
   * Allocates the table's next seq for a write touching `touchedShards` and marks it in
   * flight, in one round trip whatever their count, unless a touched shard is poisoned or
   * overloaded. `seqFloor` is any shard's `sealedThrough` (docs/table-wal-lane.md, "Floor").
   */
  async allocate(
    table: string,
    touchedShards: readonly number[],
    limits: AllocationLimits,
    seqFloor: number,
    extras: LaneAllocationExtras,
  ): Promise<LaneAllocationResult> {
    const touched = [...new Set(touchedShards)].sort((a, b) => a - b);
    const [armed, unsealed, status, ...rest] = await runLuaCommand(
      this.redis,
      LANE_ALLOCATE,
      this.keys(table),
      [
        this.clock(),
        limits.maxUnflushedGenerations,
        limits.maxUnsealedBytes,
        seqFloor,
        armMs(extras.sealDelayMs),
        touched.length,
        ...touched,
        ...completionArgs(extras.completions ?? []),
      ],
    );
    const bookkeeping = bookkeepingOf(armed, unsealed);
    switch (status) {
      case 'OK':
        return { ...bookkeeping, kind: 'ok', seq: Number(rest[0]) };
      case 'UNINITIALIZED':
        return { ...bookkeeping, kind: 'uninitialized' };
      case 'DROPPED':
        return { ...bookkeeping, kind: 'dropped' };
      case 'DROP_UNKNOWN':
        return { ...bookkeeping, kind: 'dropUnknown' };
      case 'POISONED':
        return { ...bookkeeping, kind: 'poisoned', byShard: poisonedShards(rest[0] as string[]) };
      default:
        return {
          ...bookkeeping,
          kind: 'backpressure',
          shard: Number(rest[0]),
          reason: rest[1] === 'bytes' ? 'bytes' : 'generations',
          value: Number(rest[2]),
        };
    }
  }

  /** Applies completions on their own: the seals they armed and their shards' unsealed bytes. */
  async complete(
    table: string,
    completions: readonly LaneCompletion[],
    sealDelayMs: number,
  ): Promise<LaneBookkeeping> {
    const [armed, unsealed] = await runLuaCommand(this.redis, LANE_COMPLETE, this.keys(table), [
      this.clock(),
      armMs(sealDelayMs),
      ...completionArgs(completions),
    ]);
    return bookkeepingOf(armed, unsealed);
  }

  /**
   * Shard `shard`'s seal has ended with it sealed through `sealedThrough`. `wanted` while
   * something past it is still to seal for this shard — a landed entry with a section for
   * it, or any seq allocated at or after `liveSince` still in flight (its key may yet hold
   * a section for it; `oldestLiveSince` is the oldest such allocation): the seal stays armed
   * and the caller must request the next one. Otherwise the shard's seal is disarmed.
   */
  async endSeal(
    table: string,
    shard: number,
    sealedThrough: number,
    options: { sealDelayMs: number; liveSince: number },
  ): Promise<{ wanted: boolean; oldestLiveSince: number | null }> {
    const [wanted, oldest] = await runLuaCommand(this.redis, LANE_END_SEAL, this.keys(table), [
      shard,
      sealedThrough,
      armMs(options.sealDelayMs),
      options.liveSince,
      this.clock(),
    ]);
    return { wanted: wanted === 1, oldestLiveSince: oldest === '' ? null : Number(oldest) };
  }

  /** A seal failed: the next allocation touching the shard arms another at once. */
  async disarmSeal(table: string, shard: number): Promise<void> {
    await this.redis.hdel(this.keys(table).sealArmed, String(shard));
  }

  /** The writer of `seq` gave up; any shard's seal may declare the seq a hole without waiting. */
  async abandon(table: string, seq: number): Promise<void> {
    await this.redis.zrem(this.keys(table).inflight, String(seq));
  }

  /**
   * Brings the lane's Redis state in line with the store (first use, Redis restarted empty
   * or restored from a snapshot, counters drifted by a crash between a commit and its
   * bookkeeping): the counter is raised to `seqFloor`, never lowered, and each shard of
   * `state.shards` re-seeded. A poisoned shard is listed in the poison index first, as that
   * index may over-name a shard but never miss one.
   */
  async sync(table: string, state: StoreLaneState): Promise<void> {
    for (const shard of state.shards) {
      if (shard.poison) await this.shardPoisonCache.index(table, shard.shard);
    }
    await runLuaCommand(this.redis, LANE_SYNC, this.keys(table), [
      state.seqFloor,
      ...state.shards.flatMap((s) => [
        s.shard,
        s.sealedCount,
        s.manifestVersion,
        s.unsealedBytes,
        s.sealedThrough,
        s.poison ? JSON.stringify(s.poison) : '',
      ]),
    ]);
    for (const shard of state.shards) {
      await this.shardPoisonCache.syncPoison(table, shard.shard, shard.poison, shard.manifestVersion);
    }
  }

  /** Highest seq allocated so far, or null when Redis does not know the lane. */
  async allocatedThrough(table: string): Promise<number | null> {
    const value = await this.redis.get(this.keys(table).seq);
    return value === null ? null : Number(value);
  }
}

function completionArgs(completions: readonly LaneCompletion[]): (number | string)[] {
  return completions.flatMap((c) => [c.seq, packSections(c)]);
}

function bookkeepingOf(armed: string[], unsealed: string[]): LaneBookkeeping {
  const unsealedBytes = new Map<number, number>();
  for (let i = 0; i < unsealed.length; i += 2)
    unsealedBytes.set(Number(unsealed[i]), Number(unsealed[i + 1]));
  return { armedShards: armed.map(Number), unsealedBytes };
}

function poisonedShards(pairs: string[]): Map<number, PoisonRecord> {
  const byShard = new Map<number, PoisonRecord>();
  for (let i = 0; i < pairs.length; i += 2)
    byShard.set(Number(pairs[i]), JSON.parse(pairs[i + 1]!) as PoisonRecord);
  return byShard;
}

/**
 * The per-shard coordination state kept in Redis: the seq counter with its in-flight marks,
 * the cached poison record and the counters that drive backpressure. Redis only speeds
 * things up; everything here can be rebuilt from the object store (`initialize`), and the
 * store's conditional puts catch whatever a lost or stale Redis gets wrong.
 */
import type { PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { runLuaCommand } from './lua-commands.ts';
import {
  ALLOCATE,
  CACHE_POISON,
  COMPLETE,
  RECORD_SEAL,
  RECORD_SEALED_COUNT,
  SYNC,
} from './shard-commands.ts';
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
  /** How long an armed seal stays armed when its writer never requests it (it crashed). */
  sealArmMs: number;
}

export class ShardState {
  /**
   * SET of `{shard}/{table}` whose poison key may be set, for counting poisoned shards
   * without a SCAN. Added to before a poison is cached and removed from after it is
   * cleared, so it may name a shard that is not poisoned but never misses one that is.
   */
  private readonly poisonedIndex: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.poisonedIndex = `${prefix}:{poisoned}:shards`;
  }

  keys(table: string, shard: number): ShardKeys {
    return shardKeys(this.prefix, table, shard);
  }

  /**
   * Allocates the next seq and marks it in flight, unless the shard is poisoned or
   * overloaded. `seqFloor` is the highest seq the store has sealed: a Redis restored from an
   * old snapshot would otherwise hand out seqs whose entries GC already deleted, and a write
   * there would be acked below the sealed range, where no seal or read ever looks.
   * The first allocation after a seal began arms the next seal (see `disarmSeal`). The
   * shard's copy of the drop flag is checked here, so a write asks Redis nothing else.
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
      extras.sealArmMs,
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
    sealArmMs: number,
  ): Promise<{ unsealedBytes: number; armedSeal: boolean }> {
    const [unsealed, armed] = await runLuaCommand(this.redis, COMPLETE, this.keys(table, shard), [
      sealArmMs,
      ...completionArgs(completions),
    ]);
    return { unsealedBytes: Number(unsealed), armedSeal: armed === '1' };
  }

  /**
   * A seal is starting: from now on the next allocation arms another one. A seq allocated
   * before this whose entry lands after the seal listed the WAL is still marked in flight,
   * and the seal asks for a follow-up for it (`inflightAfter`).
   */
  async disarmSeal(table: string, shard: number): Promise<void> {
    await this.redis.del(this.keys(table, shard).sealArmed);
  }

  /** In-flight seqs above `seq` with their allocation times (ms). */
  async inflightAfter(table: string, shard: number, seq: number): Promise<Map<number, number>> {
    const flat = await this.redis.zrange(this.keys(table, shard).inflight, 0, -1, 'WITHSCORES');
    const since = new Map<number, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const member = Number(flat[i]);
      if (member > seq) since.set(member, Number(flat[i + 1]));
    }
    return since;
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
  async sync(
    table: string,
    shard: number,
    state: {
      seqFloor: number;
      sealedCount: number;
      manifestVersion: number;
      unsealedBytes: number;
      poison: PoisonRecord | null;
    },
  ): Promise<void> {
    if (state.poison) await this.redis.sadd(this.poisonedIndex, `${shard}/${table}`);
    await runLuaCommand(this.redis, SYNC, this.keys(table, shard), [
      state.seqFloor,
      state.sealedCount,
      state.manifestVersion,
      state.unsealedBytes,
      state.poison ? JSON.stringify(state.poison) : '',
    ]);
  }

  async isInitialized(table: string, shard: number): Promise<boolean> {
    return (await this.redis.exists(this.keys(table, shard).seq)) === 1;
  }

  /** Highest seq allocated so far, or null when Redis does not know the shard. */
  async allocatedThrough(table: string, shard: number): Promise<number | null> {
    const value = await this.redis.get(this.keys(table, shard).seq);
    return value === null ? null : Number(value);
  }

  /** Allocation times of the in-flight seqs among `seqs`; absent = not in flight (or forgotten). */
  async inflightSince(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    return bySeq(seqs, await this.redis.zmscore(this.keys(table, shard).inflight, ...seqs.map(String)));
  }

  async walRows(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    return bySeq(seqs, await this.redis.hmget(this.keys(table, shard).walRows, ...seqs.map(String)));
  }

  /**
   * After a seal commit: the sealed bytes leave the unsealed count, the sealed count is the
   * manifest's, and the sealed seqs leave the in-flight and row-count bookkeeping.
   */
  async recordSeal(
    table: string,
    shard: number,
    sealed: { bytes: number; sealedCount: number; manifestVersion: number; seqs: number[] },
  ): Promise<void> {
    await runLuaCommand(this.redis, RECORD_SEAL, this.keys(table, shard), [
      sealed.bytes,
      sealed.sealedCount,
      sealed.manifestVersion,
      ...sealed.seqs,
    ]);
  }

  async setSealedCount(
    table: string,
    shard: number,
    sealedCount: number,
    manifestVersion: number,
  ): Promise<void> {
    await runLuaCommand(this.redis, RECORD_SEALED_COUNT, this.keys(table, shard), [
      sealedCount,
      manifestVersion,
    ]);
  }

  /**
   * Caches the shard's poison state as of manifest version `manifestVersion` (null: the
   * manifest could not be read, keep the version Redis has). A state from a newer version
   * is left alone; returns whether this one was applied.
   */
  async cachePoison(
    table: string,
    shard: number,
    poison: PoisonRecord | null,
    manifestVersion: number | null,
  ): Promise<boolean> {
    const member = `${shard}/${table}`;
    if (poison) await this.redis.sadd(this.poisonedIndex, member);
    const applied = await runLuaCommand(this.redis, CACHE_POISON, this.keys(table, shard), [
      manifestVersion ?? '',
      poison ? JSON.stringify(poison) : '',
    ]);
    if (applied === 1 && !poison) await this.redis.srem(this.poisonedIndex, member);
    return applied === 1;
  }

  /** Shards whose poison is cached, across every process on this Redis namespace. */
  async poisonedCount(): Promise<number> {
    const members = await this.redis.smembers(this.poisonedIndex);
    const held = await Promise.all(
      members.map((member) => {
        const slash = member.indexOf('/');
        const table = member.slice(slash + 1);
        return this.redis.exists(this.keys(table, Number(member.slice(0, slash))).poison);
      }),
    );
    return held.filter((exists) => exists === 1).length;
  }

  async cachedPoison(table: string, shard: number): Promise<PoisonRecord | null> {
    const value = await this.redis.get(this.keys(table, shard).poison);
    return value ? (JSON.parse(value) as PoisonRecord) : null;
  }
}

function completionArgs(completions: readonly Completion[]): number[] {
  return completions.flatMap((c) => [c.seq, c.rows, c.bytes]);
}

/** The numbers Redis answered for `seqs`, in the same order; a seq it has none for is left out. */
function bySeq(seqs: number[], values: Array<string | null | undefined>): Map<number, number> {
  const found = new Map<number, number>();
  seqs.forEach((seq, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) found.set(seq, Number(value));
  });
  return found;
}

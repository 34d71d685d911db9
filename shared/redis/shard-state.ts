/**
 * The per-shard coordination state kept in Redis: the seq counter with its in-flight marks,
 * the cached poison record and the counters that drive backpressure. Redis only speeds
 * things up; everything here can be rebuilt from the object store (`initialize`), and the
 * store's conditional puts catch whatever a lost or stale Redis gets wrong.
 */
import type { PoisonRecord } from '../lsm/shard-manifest.ts';
import type { RedisClient } from './connection.ts';
import { type ShardKeys, shardKeyList, shardKeys } from './shard-keys.ts';

/**
 * Applies the completions in ARGV[from..] (triples of seq, rows, bytes). A seq counts only
 * while it is still marked in flight: a seal that already sealed it, an abandon, or a Redis
 * that lost the mark since then would otherwise count its bytes twice. Returns how many
 * counted. `arm(ttl)` arms the seal unless one is armed: true when this call armed it.
 */
const APPLY_COMPLETIONS = `
local function applyCompletions(from)
  local applied = 0
  for i = from, #ARGV, 3 do
    if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
      redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
      redis.call('INCRBY', KEYS[4], ARGV[i + 2])
      applied = applied + 1
    end
  end
  return applied
end
local function arm(ttl)
  if redis.call('SET', KEYS[9], '1', 'NX', 'PX', ttl) then return '1' end
  return '0'
end
`;

/**
 * KEYS are shardKeyList's; ARGV[4] is the seq floor the store implies (see `allocate`);
 * ARGV[5] how long an armed seal stays armed (ms); ARGV[6..] are completions of earlier
 * entries, folded into this round trip.
 */
const ALLOCATE = `${APPLY_COMPLETIONS}
applyCompletions(6)
if redis.call('EXISTS', KEYS[1]) == 0 then return {'UNINITIALIZED'} end
local poison = redis.call('GET', KEYS[6])
if poison then return {'POISONED', poison} end
local sealed = tonumber(redis.call('GET', KEYS[5]) or '0')
if sealed > tonumber(ARGV[2]) then return {'BACKPRESSURE', 'generations', tostring(sealed)} end
local unsealed = tonumber(redis.call('GET', KEYS[4]) or '0')
if unsealed > tonumber(ARGV[3]) then return {'BACKPRESSURE', 'bytes', tostring(unsealed)} end
if tonumber(redis.call('GET', KEYS[1])) < tonumber(ARGV[4]) then redis.call('SET', KEYS[1], ARGV[4]) end
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[1], seq)
return {'OK', tostring(seq), tostring(unsealed), arm(ARGV[5])}
`;

/**
 * ARGV[1] is the arm time (ms), ARGV[2..] completions. An entry that landed after the last
 * seal began (nothing armed) may have been listed too late for it: arm the next one.
 */
const COMPLETE = `${APPLY_COMPLETIONS}
local armed = '0'
if applyCompletions(2) > 0 then armed = arm(ARGV[1]) end
return {redis.call('GET', KEYS[4]) or '0', armed}
`;

/** Sets the sealed count unless a newer manifest version already set it. */
const SET_SEALED = `
local function setSealed(count, version)
  if tonumber(version) >= tonumber(redis.call('GET', KEYS[7]) or '-1') then
    redis.call('SET', KEYS[5], count)
    redis.call('SET', KEYS[7], version)
  end
end
`;

/**
 * Brings Redis in line with the store: the seq counter never below the floor, the sealed
 * count and unsealed bytes as the store has them, and the poison as the manifest has it,
 * unless Redis holds a poison state from this manifest version or a newer one: a reopen
 * that cleared it after this sync read the manifest, or a poison held only in Redis (the
 * store refused it), which carries the version it was raised on.
 */
const SYNC = `${SET_SEALED}
if tonumber(redis.call('GET', KEYS[1]) or '-1') < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
setSealed(ARGV[2], ARGV[3])
redis.call('SET', KEYS[4], ARGV[4])
if tonumber(ARGV[3]) > tonumber(redis.call('GET', KEYS[8]) or '-1') then
  if ARGV[5] ~= '' then redis.call('SET', KEYS[6], ARGV[5]) else redis.call('DEL', KEYS[6]) end
  redis.call('SET', KEYS[8], ARGV[3])
end
return 1
`;

/**
 * Sets (ARGV[2] a record) or clears (ARGV[2] '') the cached poison as of manifest version
 * ARGV[1], unless a newer version's state is already there; ARGV[1] '' keeps the version
 * Redis has (the manifest could not be read). Returns 1 when applied.
 */
const CACHE_POISON = `
local held = tonumber(redis.call('GET', KEYS[8]) or '-1')
local version = ARGV[1] == '' and held or tonumber(ARGV[1])
if version < held then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[6]) else redis.call('SET', KEYS[6], ARGV[2]) end
redis.call('SET', KEYS[8], version)
return 1
`;

const RECORD_SEAL = `${SET_SEALED}
local left = redis.call('DECRBY', KEYS[4], ARGV[1])
if left < 0 then redis.call('SET', KEYS[4], 0) end
setSealed(ARGV[2], ARGV[3])
for i = 4, #ARGV do
  redis.call('HDEL', KEYS[3], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
end
return 1
`;

const RECORD_SEALED_COUNT = `${SET_SEALED}
setSealed(ARGV[1], ARGV[2])
return 1
`;

type ScriptResult = [string, ...string[]];

interface ShardScripts {
  sluiceAllocate(...args: (string | number)[]): Promise<ScriptResult>;
  sluiceComplete(...args: (string | number)[]): Promise<[string, string]>;
  sluiceSync(...args: (string | number)[]): Promise<number>;
  sluiceRecordSeal(...args: (string | number)[]): Promise<number>;
  sluiceRecordSealedCount(...args: (string | number)[]): Promise<number>;
  sluiceCachePoison(...args: (string | number)[]): Promise<number>;
}

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
  private readonly scripts: ShardScripts;
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
    const keys = shardKeyList(shardKeys(prefix, 't', 0)).length;
    redis.defineCommand('sluiceAllocate', { numberOfKeys: keys, lua: ALLOCATE });
    redis.defineCommand('sluiceComplete', { numberOfKeys: keys, lua: COMPLETE });
    redis.defineCommand('sluiceSync', { numberOfKeys: keys, lua: SYNC });
    redis.defineCommand('sluiceRecordSeal', { numberOfKeys: keys, lua: RECORD_SEAL });
    redis.defineCommand('sluiceRecordSealedCount', { numberOfKeys: keys, lua: RECORD_SEALED_COUNT });
    redis.defineCommand('sluiceCachePoison', { numberOfKeys: keys, lua: CACHE_POISON });
    this.scripts = redis as unknown as ShardScripts;
  }

  keys(table: string, shard: number): ShardKeys {
    return shardKeys(this.prefix, table, shard);
  }

  /**
   * Allocates the next seq and marks it in flight, unless the shard is poisoned or
   * overloaded. `seqFloor` is the highest seq the store has sealed: a Redis restored from an
   * old snapshot would otherwise hand out seqs whose entries GC already deleted, and a write
   * there would be acked below the sealed range, where no seal or read ever looks.
   * The first allocation after a seal began arms the next seal (see `disarmSeal`).
   */
  async allocate(
    table: string,
    shard: number,
    limits: AllocationLimits,
    seqFloor: number,
    extras: AllocationExtras,
  ): Promise<Allocation> {
    const keys = shardKeyList(this.keys(table, shard));
    const [status, ...rest] = await this.scripts.sluiceAllocate(
      ...keys,
      Date.now(),
      limits.maxUnflushedGenerations,
      limits.maxUnsealedBytes,
      seqFloor,
      extras.sealArmMs,
      ...completionArgs(extras.completions ?? []),
    );
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
    const [unsealed, armed] = await this.scripts.sluiceComplete(
      ...shardKeyList(this.keys(table, shard)),
      sealArmMs,
      ...completionArgs(completions),
    );
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
    await this.scripts.sluiceSync(
      ...shardKeyList(this.keys(table, shard)),
      state.seqFloor,
      state.sealedCount,
      state.manifestVersion,
      state.unsealedBytes,
      state.poison ? JSON.stringify(state.poison) : '',
    );
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
    const since = new Map<number, number>();
    if (seqs.length === 0) return since;
    const scores = await this.redis.zmscore(this.keys(table, shard).inflight, ...seqs.map(String));
    seqs.forEach((seq, i) => {
      const score = scores[i];
      if (score !== null && score !== undefined) since.set(seq, Number(score));
    });
    return since;
  }

  async walRows(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    const rows = new Map<number, number>();
    if (seqs.length === 0) return rows;
    const values = await this.redis.hmget(this.keys(table, shard).walRows, ...seqs.map(String));
    seqs.forEach((seq, i) => {
      const value = values[i];
      if (value !== null && value !== undefined) rows.set(seq, Number(value));
    });
    return rows;
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
    await this.scripts.sluiceRecordSeal(
      ...shardKeyList(this.keys(table, shard)),
      sealed.bytes,
      sealed.sealedCount,
      sealed.manifestVersion,
      ...sealed.seqs,
    );
  }

  async setSealedCount(
    table: string,
    shard: number,
    sealedCount: number,
    manifestVersion: number,
  ): Promise<void> {
    await this.scripts.sluiceRecordSealedCount(
      ...shardKeyList(this.keys(table, shard)),
      sealedCount,
      manifestVersion,
    );
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
    const applied = await this.scripts.sluiceCachePoison(
      ...shardKeyList(this.keys(table, shard)),
      manifestVersion ?? '',
      poison ? JSON.stringify(poison) : '',
    );
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

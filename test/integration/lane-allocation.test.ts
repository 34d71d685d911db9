/**
 * The table WAL lane's Redis state against a real Redis (docs/table-wal-lane.md, §2, §4,
 * §6): one seq counter for every shard of a table, each shard's poison, limits, seal arm
 * and seal bookkeeping in the lane's hashes. The clock the scripts compare seal arms with
 * is the test's, so an arm expires when the test says.
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../shared/redis/connection.ts';
import { LaneAllocation } from '../../shared/redis/lane-allocation.ts';
import { type LaneKeys, laneKeys } from '../../shared/redis/lane-keys.ts';
import { LanePoisonCache } from '../../shared/redis/lane-poison-cache.ts';
import { LaneSealCounters } from '../../shared/redis/lane-seal-counters.ts';
import type { EntrySection, LaneCompletion } from '../../shared/redis/lane-sections.ts';
import { PoisonCache } from '../../shared/redis/poison-cache.ts';
import { armMs } from '../../shared/redis/seq-allocation.ts';
import type { PoisonRecord } from '../../shared/shard-poison.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';

const LIMITS = { maxUnflushedGenerations: 4, maxUnsealedBytes: 1_000 };
const SEAL_DELAY_MS = 200;
const EXTRAS = { sealDelayMs: SEAL_DELAY_MS };
const TABLE = 'orders';

let ns: RedisNamespace;
let redis: RedisClient;
let now: number;
let lane: LaneAllocation;
let counters: LaneSealCounters;
let poisons: LanePoisonCache;
let keys: LaneKeys;

beforeEach(() => {
  ns = createRedisNamespace();
  redis = ns.connect();
  now = 1_700_000_000_000;
  poisons = new LanePoisonCache(redis, ns.prefix);
  lane = new LaneAllocation(redis, ns.prefix, new PoisonCache(redis, ns.prefix), () => now);
  counters = new LaneSealCounters(redis, ns.prefix);
  keys = laneKeys(ns.prefix, TABLE);
});

afterEach(async () => {
  await ns.cleanup();
});

/** A lane as a writer finds it once synced from an empty store and its drop flag filled. */
async function openLane(): Promise<void> {
  await lane.sync(TABLE, { seqFloor: 0, shards: [] });
  await redis.set(keys.dropped, '0');
}

async function allocated(shards: number[], completions: LaneCompletion[] = []): Promise<number> {
  const result = await lane.allocate(TABLE, shards, LIMITS, 0, { ...EXTRAS, completions });
  if (result.kind !== 'ok') throw new Error(`expected a seq, got ${result.kind}`);
  return result.seq;
}

/** An entry at `seq` whose section for each shard is `bytes` long, laid end to end. */
function completion(seq: number, shards: number[], bytes = 100): LaneCompletion {
  const sections: EntrySection[] = shards.map((shard, i) => ({
    shard,
    start: 64 + i * bytes,
    end: 64 + (i + 1) * bytes,
    rows: 5,
  }));
  return { seq, sections, schemaVersion: 1 };
}

const POISON: PoisonRecord = {
  code: 'DATA_CORRUPT',
  generation: 3,
  cause: 'bad file',
  at: '2024-01-01T00:00:00Z',
};

async function inflight(): Promise<number[]> {
  return (await redis.zrange(keys.inflight, 0, -1)).map(Number);
}

async function sectionSeqs(): Promise<number[]> {
  return (await redis.hkeys(keys.sections)).map(Number).sort((a, b) => a - b);
}

/**
 * Commands a client sent that name this test's prefix, as Redis's MONITOR saw them: the
 * script's own calls are left out (their source is `lua`), so each is one round trip.
 */
async function roundTripsOf(work: () => Promise<unknown>): Promise<string[][]> {
  const monitor = await (ns.connect() as Redis).monitor();
  const seen: string[][] = [];
  const marker = `${ns.prefix}:done`;
  const done = new Promise<void>((resolve) => {
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args.includes(marker)) resolve();
      else if (source !== 'lua' && args.some((arg) => arg.includes(ns.prefix))) seen.push(args);
    });
  });
  await work();
  await redis.echo(marker);
  await done;
  monitor.disconnect();
  return seen;
}

describe('lane allocation (docs/table-wal-lane.md §2: one seq per write whatever its shards)', () => {
  it('allocates for a write touching 16 shards in one round trip, arming each shard once', async () => {
    await openLane();
    let result: Awaited<ReturnType<LaneAllocation['allocate']>> | undefined;
    const shards = Array.from({ length: 16 }, (_, s) => s);
    const trips = await roundTripsOf(async () => {
      result = await lane.allocate(TABLE, shards, LIMITS, 0, EXTRAS);
    });
    expect(trips).toHaveLength(1);
    expect(trips[0]![0]!.toLowerCase()).toMatch(/^eval/);
    expect(result).toMatchObject({ kind: 'ok', seq: 1, armedShards: shards });
    expect([...result!.unsealedBytes]).toEqual(shards.map((s) => [s, 0]));
  });

  it('hands out consecutive seqs across writes of different shard sets', async () => {
    await openLane();
    const seqs = [];
    for (const shards of [[0, 3], [7], [1, 2, 3, 4, 5], [3, 0], [15]]) seqs.push(await allocated(shards));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(await inflight()).toEqual([1, 2, 3, 4, 5]);
    expect(await redis.zscore(keys.inflight, '3')).toBe(String(now));
    expect(await lane.allocatedThrough(TABLE)).toBe(5);
  });

  it('raises the counter to the floor, and a lower floor never lowers it', async () => {
    await openLane();
    expect(await lane.allocate(TABLE, [2], LIMITS, 40, EXTRAS)).toMatchObject({ kind: 'ok', seq: 41 });
    expect(await lane.allocate(TABLE, [5], LIMITS, 10, EXTRAS)).toMatchObject({ kind: 'ok', seq: 42 });
  });

  it('refuses an uninitialized lane, a dropped table and one whose drop flag is not filled', async () => {
    expect(await lane.allocate(TABLE, [0], LIMITS, 0, EXTRAS)).toMatchObject({ kind: 'uninitialized' });
    await lane.sync(TABLE, { seqFloor: 0, shards: [] });
    expect(await lane.allocate(TABLE, [0], LIMITS, 0, EXTRAS)).toMatchObject({ kind: 'dropUnknown' });
    await redis.set(keys.dropped, '1');
    expect(await lane.allocate(TABLE, [0], LIMITS, 0, EXTRAS)).toMatchObject({ kind: 'dropped' });
    expect(await lane.allocatedThrough(TABLE)).toBe(0);
    expect(await inflight()).toEqual([]);
  });

  it('refuses a write touching poisoned shards whole, naming each, and allocates a write to other shards', async () => {
    await openLane();
    const other = { ...POISON, generation: 9 };
    expect(await poisons.cachePoison(TABLE, 2, POISON, 4)).toBe(true);
    expect(await poisons.cachePoison(TABLE, 5, other, 6)).toBe(true);
    const refused = await lane.allocate(TABLE, [1, 2, 5], LIMITS, 0, EXTRAS);
    expect(refused).toMatchObject({ kind: 'poisoned', armedShards: [] });
    if (refused.kind !== 'poisoned') throw new Error('not poisoned');
    expect(refused.byShard).toEqual(
      new Map([
        [2, POISON],
        [5, other],
      ]),
    );
    expect(await lane.allocatedThrough(TABLE)).toBe(0);
    expect(await redis.hget(keys.sealArmed, '1')).toBeNull();
    expect(await lane.allocate(TABLE, [1, 3], LIMITS, 0, EXTRAS)).toMatchObject({ kind: 'ok', seq: 1 });
    expect(await poisons.cachedPoison(TABLE, 5)).toEqual(other);
    expect(await poisons.cachePoison(TABLE, 5, null, 7)).toBe(true);
    expect(await poisons.cachedPoison(TABLE, 5)).toBeNull();
  });

  it('applies backpressure per shard, naming the first touched shard over a limit (I18)', async () => {
    await openLane();
    await counters.setSealedCount(TABLE, 4, LIMITS.maxUnflushedGenerations + 1, 1);
    await allocated([7]);
    await lane.complete(TABLE, [completion(1, [7], LIMITS.maxUnsealedBytes + 1)], SEAL_DELAY_MS);

    expect(await lane.allocate(TABLE, [0, 4, 7], LIMITS, 0, EXTRAS)).toMatchObject({
      kind: 'backpressure',
      shard: 4,
      reason: 'generations',
      value: LIMITS.maxUnflushedGenerations + 1,
    });
    expect(await lane.allocate(TABLE, [0, 7], LIMITS, 0, EXTRAS)).toMatchObject({
      kind: 'backpressure',
      shard: 7,
      reason: 'bytes',
      value: LIMITS.maxUnsealedBytes + 1,
    });
    expect(await allocated([0, 5])).toBe(2);
    // An older manifest's count never overwrites a newer one's.
    await counters.setSealedCount(TABLE, 4, 0, 0);
    expect(await lane.allocate(TABLE, [4], LIMITS, 0, EXTRAS)).toMatchObject({
      kind: 'backpressure',
      shard: 4,
    });
    await counters.setSealedCount(TABLE, 4, 0, 2);
    expect(await allocated([4])).toBe(3);
  });

  it('applies the completions it carries whatever the answer: sections kept, bytes per shard, seals armed', async () => {
    await openLane();
    expect(await allocated([0, 3])).toBe(1);
    await lane.disarmSeal(TABLE, 0);
    await poisons.cachePoison(TABLE, 9, POISON, 1);

    const refused = await lane.allocate(TABLE, [9], LIMITS, 0, {
      ...EXTRAS,
      completions: [completion(1, [0, 3], 150)],
    });
    expect(refused).toMatchObject({ kind: 'poisoned', armedShards: [0] });
    expect([...refused.unsealedBytes]).toEqual([
      [0, 150],
      [3, 150],
    ]);
    expect(await counters.sections(TABLE, [1, 2])).toEqual(
      new Map([[1, { schemaVersion: 1, sections: completion(1, [0, 3], 150).sections }]]),
    );
    expect(await inflight()).toEqual([]);

    // Carried again (a retried allocation), it no longer counts: its mark is gone.
    const again = await lane.allocate(TABLE, [3], LIMITS, 0, {
      ...EXTRAS,
      completions: [completion(1, [0, 3], 150)],
    });
    expect(again).toMatchObject({ kind: 'ok', seq: 2, armedShards: [] });
    expect([...again.unsealedBytes]).toEqual([[3, 150]]);
  });

  it('completes on its own, arming the seals of the shards the entry has sections for', async () => {
    await openLane();
    await allocated([1, 6]);
    now += armMs(SEAL_DELAY_MS) + 1;
    const done = await lane.complete(TABLE, [completion(1, [1, 6], 40)], SEAL_DELAY_MS);
    expect(done.armedShards).toEqual([1, 6]);
    expect([...done.unsealedBytes]).toEqual([
      [1, 40],
      [6, 40],
    ]);
  });

  it('arms each shard once until its seal is disarmed or its arm has expired', async () => {
    await openLane();
    expect((await lane.allocate(TABLE, [1, 2], LIMITS, 0, EXTRAS)).armedShards).toEqual([1, 2]);
    expect((await lane.allocate(TABLE, [2, 3], LIMITS, 0, EXTRAS)).armedShards).toEqual([3]);
    expect((await lane.allocate(TABLE, [1], LIMITS, 0, EXTRAS)).armedShards).toEqual([]);
    await lane.disarmSeal(TABLE, 1);
    expect((await lane.allocate(TABLE, [1, 2], LIMITS, 0, EXTRAS)).armedShards).toEqual([1]);
    now += armMs(SEAL_DELAY_MS) - 1;
    expect((await lane.allocate(TABLE, [2], LIMITS, 0, EXTRAS)).armedShards).toEqual([]);
    now += 1;
    expect((await lane.allocate(TABLE, [2], LIMITS, 0, EXTRAS)).armedShards).toEqual([2]);
  });
});

describe('lane seal end (docs/table-wal-lane.md §4 step 7)', () => {
  const LIVE = { sealDelayMs: SEAL_DELAY_MS, liveSince: 0 };

  it('an entry past sealedThrough without this shard’s section does not keep this shard’s seal armed', async () => {
    await openLane();
    await allocated([0]);
    await allocated([3]);
    await lane.complete(TABLE, [completion(1, [0]), completion(2, [3])], SEAL_DELAY_MS);

    expect(await lane.endSeal(TABLE, 0, 1, LIVE)).toEqual({ wanted: false, oldestLiveSince: null });
    expect(await redis.hget(keys.sealArmed, '0')).toBeNull();
    now += 50;
    expect(await lane.endSeal(TABLE, 3, 1, LIVE)).toEqual({ wanted: true, oldestLiveSince: null });
    expect(await redis.hget(keys.sealArmed, '3')).toBe(String(now + armMs(SEAL_DELAY_MS)));
    expect((await lane.allocate(TABLE, [0, 3], LIMITS, 0, EXTRAS)).armedShards).toEqual([0]);
  });

  it('a seq in flight past sealedThrough keeps every shard’s seal wanted while it is live, whatever its shards', async () => {
    await openLane();
    const allocatedAt = now;
    await allocated([5]);
    now += 1_000;
    expect(await lane.endSeal(TABLE, 2, 0, { ...LIVE, liveSince: allocatedAt })).toEqual({
      wanted: true,
      oldestLiveSince: allocatedAt,
    });
    expect(await lane.endSeal(TABLE, 2, 0, { ...LIVE, liveSince: allocatedAt + 1 })).toEqual({
      wanted: false,
      oldestLiveSince: null,
    });
    expect(await lane.endSeal(TABLE, 2, 1, { ...LIVE, liveSince: allocatedAt })).toEqual({
      wanted: false,
      oldestLiveSince: null,
    });
  });
});

describe('lane seal bookkeeping (docs/table-wal-lane.md §4 step 7)', () => {
  const SHARDS = 4;

  function record(shard: number, sealedThrough: number, bytes = 0, version = sealedThrough) {
    return counters.recordSeal(TABLE, shard, {
      bytes,
      sealedCount: 1,
      manifestVersion: version,
      sealedThrough,
      shardCount: SHARDS,
    });
  }

  it('forgets sections and in-flight marks only at or below the lowest sealed-through of all shards', async () => {
    await openLane();
    await allocated([0, 1]);
    await allocated([2]); // never completes: a hole once a seal passes it
    await allocated([0, 3]);
    await allocated([1]); // still in flight
    await lane.complete(TABLE, [completion(1, [0, 1]), completion(3, [0, 3])], SEAL_DELAY_MS);
    expect(await sectionSeqs()).toEqual([1, 3]);
    expect(await inflight()).toEqual([2, 4]);

    await record(0, 3);
    await record(1, 2);
    await record(2, 3);
    expect(await sectionSeqs()).toEqual([1, 3]);
    expect(await inflight()).toEqual([2, 4]);

    await record(3, 2);
    expect(await sectionSeqs()).toEqual([3]);
    expect(await inflight()).toEqual([4]);
    expect(await redis.hgetall(keys.sealedThrough)).toEqual({ 0: '3', 1: '2', 2: '3', 3: '2' });
  });

  it('takes sealed bytes out of the shard’s unsealed count, never below zero, and keeps the newest sealed count', async () => {
    await openLane();
    await allocated([0, 1]);
    await lane.complete(TABLE, [completion(1, [0, 1], 300)], SEAL_DELAY_MS);
    await counters.recordSeal(TABLE, 0, {
      bytes: 200,
      sealedCount: 2,
      manifestVersion: 5,
      sealedThrough: 1,
      shardCount: SHARDS,
    });
    await counters.recordSeal(TABLE, 1, {
      bytes: 500,
      sealedCount: 1,
      manifestVersion: 3,
      sealedThrough: 1,
      shardCount: SHARDS,
    });
    await counters.recordSeal(TABLE, 0, {
      bytes: 0,
      sealedCount: 9,
      manifestVersion: 4,
      sealedThrough: 0,
      shardCount: SHARDS,
    });
    expect(await redis.hgetall(keys.unsealedBytes)).toEqual({ 0: '100', 1: '0' });
    expect(await redis.hgetall(keys.sealedCount)).toEqual({ 0: '2', 1: '1' });
    expect(await redis.hget(keys.sealedThrough, '0')).toBe('1');
  });

  it('a completion landing after one shard sealed its seq counts and arms only the shards still to seal it', async () => {
    await openLane();
    await allocated([0, 3]);
    await record(0, 1);
    now += armMs(SEAL_DELAY_MS) + 1;
    const done = await lane.complete(TABLE, [completion(1, [0, 3], 70)], SEAL_DELAY_MS);
    expect(done.armedShards).toEqual([3]);
    expect([...done.unsealedBytes]).toEqual([[3, 70]]);
    expect(await redis.hget(keys.unsealedBytes, '0')).toBe('0');
    expect(await sectionSeqs()).toEqual([1]);
  });
});

describe('lane sync (docs/table-wal-lane.md §4 "Lost seals, sync, reconcile")', () => {
  it('raises the counter to the floor but never lowers it, and leaves the drop flag alone', async () => {
    await openLane();
    await redis.set(keys.seq, '10');
    await lane.sync(TABLE, { seqFloor: 5, shards: [] });
    expect(await lane.allocatedThrough(TABLE)).toBe(10);
    await lane.sync(TABLE, { seqFloor: 20, shards: [] });
    expect(await allocated([0])).toBe(21);
    await redis.set(keys.dropped, '1');
    await lane.sync(TABLE, { seqFloor: 30, shards: [] });
    expect(await redis.get(keys.dropped)).toBe('1');
  });

  it('re-seeds each shard it names, and a poison read from an older manifest never overwrites a newer clear', async () => {
    await openLane();
    await poisons.cachePoison(TABLE, 1, POISON, 3);
    await poisons.cachePoison(TABLE, 1, null, 7);
    const shard = (s: number, version: number, poison: PoisonRecord | null) => ({
      shard: s,
      sealedCount: 2,
      manifestVersion: version,
      unsealedBytes: 640,
      sealedThrough: 8,
      poison,
    });
    await lane.sync(TABLE, { seqFloor: 8, shards: [shard(1, 5, POISON), shard(2, 5, POISON)] });
    expect(await poisons.cachedPoison(TABLE, 1)).toBeNull();
    expect(await poisons.cachedPoison(TABLE, 2)).toEqual(POISON);
    expect(await redis.hgetall(keys.unsealedBytes)).toEqual({ 1: '640', 2: '640' });
    expect(await redis.hgetall(keys.sealedCount)).toEqual({ 1: '2', 2: '2' });
    expect(await redis.hgetall(keys.sealedThrough)).toEqual({ 1: '8', 2: '8' });

    await lane.sync(TABLE, { seqFloor: 8, shards: [shard(1, 8, POISON), shard(2, 8, null)] });
    expect(await poisons.cachedPoison(TABLE, 1)).toEqual(POISON);
    expect(await poisons.cachedPoison(TABLE, 2)).toBeNull();
    expect(await new PoisonCache(redis, ns.prefix).poisonedCount()).toBe(1);
  });

  it('never lowers a shard’s sealed-through', async () => {
    await openLane();
    await counters.recordSeal(TABLE, 0, {
      bytes: 0,
      sealedCount: 0,
      manifestVersion: 9,
      sealedThrough: 12,
      shardCount: 1,
    });
    await lane.sync(TABLE, {
      seqFloor: 12,
      shards: [
        { shard: 0, sealedCount: 0, manifestVersion: 8, unsealedBytes: 0, sealedThrough: 4, poison: null },
      ],
    });
    expect(await redis.hget(keys.sealedThrough, '0')).toBe('12');
  });
});

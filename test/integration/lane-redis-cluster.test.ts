/**
 * The table lane on a real Redis Cluster (three masters, three replicas, started by the
 * test): every lane key hashes to one slot, so each lane script runs on one node whatever
 * shards it touches; one that crossed slots would fail with CROSSSLOT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaneAllocation } from '../../shared/redis/lane-allocation.ts';
import { laneKeyList, laneKeys } from '../../shared/redis/lane-keys.ts';
import { LanePoisonCache } from '../../shared/redis/lane-poison-cache.ts';
import { LaneSealCounters } from '../../shared/redis/lane-seal-counters.ts';
import { PoisonCache } from '../../shared/redis/poison-cache.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.ts';

let cluster: TestCluster;
let ns: RedisNamespace;

beforeAll(async () => {
  cluster = await startTestCluster();
  ns = createRedisNamespace(cluster.target);
});

afterAll(async () => {
  await ns?.cleanup();
  await cluster?.stop();
});

describe('table lane on a Redis Cluster', () => {
  it('maps every lane key to one slot and runs a 16-shard allocation and its seal bookkeeping there', async () => {
    const table = 'orders';
    const keys = laneKeys(ns.prefix, table);
    const admin = cluster.node(cluster.ports[0]!);
    const slots = await Promise.all(laneKeyList(keys).map((key) => admin.cluster('KEYSLOT', key)));
    expect(new Set(slots).size).toBe(1);

    const redis = ns.connect();
    const poisons = new LanePoisonCache(redis, ns.prefix);
    const lane = new LaneAllocation(redis, ns.prefix, new PoisonCache(redis, ns.prefix));
    const counters = new LaneSealCounters(redis, ns.prefix);
    const shards = Array.from({ length: 16 }, (_, s) => s);
    const limits = { maxUnflushedGenerations: 64, maxUnsealedBytes: 1 << 20 };

    await lane.sync(table, {
      seqFloor: 7,
      shards: shards.map((shard) => ({
        shard,
        sealedCount: 0,
        manifestVersion: 1,
        unsealedBytes: 0,
        sealedThrough: 7,
        poison: null,
      })),
    });
    await redis.set(keys.dropped, '0');
    const first = await lane.allocate(table, shards, limits, 7, { sealDelayMs: 100 });
    expect(first).toMatchObject({ kind: 'ok', seq: 8, armedShards: shards });

    const sections = shards.map((shard) => ({ shard, start: shard * 10, end: shard * 10 + 10, rows: 1 }));
    const second = await lane.allocate(table, [3], limits, 7, {
      sealDelayMs: 100,
      completions: [{ seq: 8, sections, schemaVersion: 1 }],
    });
    expect(second).toMatchObject({ kind: 'ok', seq: 9 });
    expect(second.unsealedBytes.get(15)).toBe(10);
    expect(await lane.endSeal(table, 3, 8, { sealDelayMs: 100, liveSince: 0 })).toMatchObject({
      wanted: true,
    });
    for (const shard of shards) {
      await counters.recordSeal(table, shard, {
        bytes: 10,
        sealedCount: 1,
        manifestVersion: 2,
        sealedThrough: 8,
        shardCount: 16,
      });
    }
    expect(await counters.sections(table, [8])).toEqual(new Map());
    expect(await poisons.cachePoison(table, 3, null, 2)).toBe(true);
    expect(await lane.complete(table, [], 100)).toEqual({ armedShards: [], unsealedBytes: new Map() });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../infra/local/redis.ts';
import { poison } from '../../shared/lsm/poison.ts';
import { reconcileShard } from '../../shared/lsm/reconcile.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const REASON = { code: 'DATA_CORRUPT' as const, generation: 1, cause: 'test poison' };

describe('poison held only in Redis (I7, suspected: lost when Redis restarts empty)', () => {
  let h: Harness;
  let redis: PrivateRedis | null = null;

  afterEach(async () => {
    await h.close();
    await redis?.stop();
    redis = null;
  });

  async function poisonRefusedByStore(table: string) {
    await h.createTable(eventsTable(table));
    await writeRows(h.sluice, table, eventRows(1, 5));
    const refusing = h.store.inject({ op: 'putIfAbsent', key: '**/_manifest/**', fault: 'fail' });
    const outcome = await poison(h.parts, { table: table, shard: 0 }, REASON);
    refusing.remove();
    expect(outcome).toMatchObject({ poisoned: true, durable: false });
    expect((await h.parts.manifests.read(table, 0)).poison).toBeNull();
  }

  it('the next sweep makes it durable, so the shard stays poisoned after Redis restarts empty', async () => {
    redis = await startPrivateRedis();
    h = await createHarness({ redisUrl: redis.url });
    await poisonRefusedByStore('amnesia');

    await h.sluice.shards.reconcile('amnesia');
    expect((await h.parts.manifests.read('amnesia', 0)).poison).toMatchObject({ code: 'DATA_CORRUPT' });
    await redis.restart();

    await expect(writeRows(h.sluice, 'amnesia', eventRows(6, 10))).rejects.toMatchObject({
      code: 'SHARD_POISONED',
    });
    expect((await h.sluice.shards.stats('amnesia', 0)).poison).toMatchObject({ code: 'DATA_CORRUPT' });
  });

  it('a reopen that runs while a sweep is making it durable wins: the shard ends open', async () => {
    h = await createHarness();
    await poisonRefusedByStore('race');
    const gated = new GatedStore(h.store);
    const sweeper = h.otherProcess(gated).parts;
    const gate = gated.hold('putIfAbsent', /\/_manifest\//);
    const sweep = reconcileShard(sweeper, 'race', 0);
    await gate.reached;
    await h.sluice.shards.reopen('race', 0);
    gate.release();
    await sweep;

    expect((await h.parts.manifests.read('race', 0)).poison).toBeNull();
    expect(await h.parts.poisonCache.cachedPoison('race', 0)).toBeNull();
    await expect(writeRows(h.sluice, 'race', eventRows(6, 10))).resolves.toBeDefined();
  });
});

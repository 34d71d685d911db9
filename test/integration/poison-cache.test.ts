import { afterEach, describe, expect, it } from 'vitest';
import { poison } from '../../shared/lsm/poison.ts';
import { shardKeyList } from '../../shared/redis/shard-keys.ts';
import { syncShard } from '../../shared/wal/shard-sync.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const REASON = { code: 'DATA_CORRUPT' as const, generation: 1, cause: 'test poison' };

describe('poison cache (I7, defect 2: a stale sync brings back a cleared poison)', () => {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  async function poisonedTable(name: string) {
    h = await createHarness();
    await h.createTable(eventsTable(name));
    await writeRows(h.sluice, name, eventRows(1, 5));
    const outcome = await poison(h.parts, { table: name, shard: 0 }, REASON);
    expect(outcome).toMatchObject({ poisoned: true, durable: true });
  }

  it('a sync that read the poisoned manifest before a reopen leaves the shard open', async () => {
    await poisonedTable('race');
    const gated = new GatedStore(h.store);
    const gate = gated.hold('list', /\/wal\/$/);
    const sync = syncShard(
      { store: gated, manifests: h.parts.manifests, seqAllocation: h.parts.seqAllocation },
      'race',
      0,
    );
    await gate.reached;
    await h.sluice.shards.reopen('race', 0);
    gate.release();
    await sync;

    expect(await h.parts.poisonCache.cachedPoison('race', 0)).toBeNull();
    await expect(writeRows(h.sluice, 'race', eventRows(6, 10))).resolves.toBeDefined();
    expect((await h.sluice.shards.stats('race', 0)).poison).toBeNull();
  });

  it('a Redis restored from a snapshot taken while poisoned heals on the next sync', async () => {
    await poisonedTable('snapshot');
    const keys = shardKeyList(h.shardKeys('snapshot', 0));
    const snapshot = await Promise.all(
      keys.map(async (key) => [key, await h.redis.dumpBuffer(key)] as const),
    );
    await h.sluice.shards.reopen('snapshot', 0);
    for (const [key, dump] of snapshot) {
      if (dump) await h.redis.restore(key, 0, dump, 'REPLACE');
      else await h.redis.del(key);
    }
    expect(await h.parts.poisonCache.cachedPoison('snapshot', 0)).toMatchObject({ code: 'DATA_CORRUPT' });

    await h.sluice.shards.reconcile('snapshot');
    expect(await h.parts.poisonCache.cachedPoison('snapshot', 0)).toBeNull();
    await expect(writeRows(h.sluice, 'snapshot', eventRows(6, 10))).resolves.toBeDefined();
  });

  it('a poison the store refused lives on in Redis across syncs, until a reopen clears it', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('refused'));
    await writeRows(h.sluice, 'refused', eventRows(1, 5));
    const refusing = h.store.inject({ op: 'putIfAbsent', key: '**/_manifest/**', fault: 'fail' });
    const outcome = await poison(h.parts, { table: 'refused', shard: 0 }, REASON);
    refusing.remove();
    expect(outcome).toMatchObject({ poisoned: true, durable: false });

    await h.sluice.shards.reconcile('refused');
    expect(await h.parts.poisonCache.cachedPoison('refused', 0)).toMatchObject({ code: 'DATA_CORRUPT' });
    await expect(writeRows(h.sluice, 'refused', eventRows(6, 10))).rejects.toMatchObject({
      code: 'SHARD_POISONED',
    });

    await h.sluice.shards.reopen('refused', 0);
    await h.sluice.shards.reconcile('refused');
    expect(await h.parts.poisonCache.cachedPoison('refused', 0)).toBeNull();
    await expect(writeRows(h.sluice, 'refused', eventRows(6, 10))).resolves.toBeDefined();
  });
});

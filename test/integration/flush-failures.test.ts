import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetter } from '../../queue/dead-letter.ts';
import { QUEUE, queueOptions } from '../../queue/queues.ts';
import { generationKey, generationPrefix, shardManifestPrefix, walPrefix } from '../../shared/table/paths.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, lookupJson, readAll, writeRows } from '../support/rows.ts';
import { l0Rows, laneTable, rowsOfShard } from '../support/table-lane.ts';
import { waitFor } from '../support/wait-for.ts';

const GEN = (table: string, n: number) => generationKey(table, 0, n);

describe('flush failures: order, retry, poison, reopen', () => {
  let h: Harness;
  let deadLetters: Queue<DeadLetter>;

  async function setup(overrides: Parameters<typeof createHarness>[0] = {}) {
    h = await createHarness(overrides);
    deadLetters = new Queue<DeadLetter>(QUEUE.deadLetter, queueOptions(h.config, QUEUE.deadLetter));
  }

  afterEach(async () => {
    await deadLetters.close();
    await h.close();
  });

  async function manifest(table: string) {
    return h.parts.manifests.read(table, 0);
  }

  /** Writes one batch and waits until it is sealed into a generation of its own. */
  async function writeGeneration(table: string, from: number, to: number, expectGeneration: number) {
    await writeRows(h.sluice, table, eventRows(from, to));
    await waitFor(async () => (await manifest(table)).nextGeneration > expectGeneration, {
      message: `generation ${expectGeneration} sealed`,
    });
  }

  /** A new table whose workers run and whose generation 1 (rows 1–10) is committed. */
  async function firstGenerationCommitted(table: string) {
    await h.createTable(eventsTable(table));
    h.startWorkers();
    await writeGeneration(table, 1, 10, 1);
    await waitFor(async () => (await manifest(table)).committed.length === 1, {
      message: 'generation 1 committed',
    });
  }

  describe('with a long retry budget', () => {
    beforeEach(() => setup({ flush: { maxRetries: 1000, retryBaseMs: 10, retryMaxMs: 50 } }));

    it('I3/I5: generations 2 and 3 wait behind a failing 2, then commit exactly [1, 2, 3] in order', async () => {
      await firstGenerationCommitted('order');

      const broken = h.store.inject({ op: 'put', key: GEN('order', 2), fault: 'fail' });
      await writeGeneration('order', 11, 20, 2);
      await waitFor(() => broken.hits >= 3, { message: 'generation 2 retried' });
      await writeGeneration('order', 21, 30, 3);
      const hitsBefore = broken.hits;
      await waitFor(() => broken.hits >= hitsBefore + 3, {
        message: 'generation 2 still retrying after 3 sealed',
      });

      const during = await manifest('order');
      expect(during.committed.map((c) => c.generation)).toEqual([1]);
      expect(during.sealed.map((g) => g.generation)).toEqual([2, 3]);
      expect(during.walCursor).toBe(1);
      expect(await h.store.inner.head(GEN('order', 3))).toBeNull();

      h.store.heal();
      await waitFor(async () => (await manifest('order')).committed.length === 3, {
        message: 'all committed',
      });
      const after = await manifest('order');
      expect(after.committed.map((c) => c.generation)).toEqual([1, 2, 3]);
      expect(after.sealed).toEqual([]);
      expect(after.walCursor).toBe(after.sealedThrough);
      expect((await h.sluice.shards.stats('order', 0)).unsealedEntries).toBe(0);
      expect(await readAll(h.sluice, 'order')).toEqual(eventRows(1, 30));
      expect(await deadLetters.count()).toBe(0);
    });

    it('I13: a lost-ack manifest commit does not poison, and the generation is committed once', async () => {
      await h.createTable(eventsTable('lostack'));
      const lost = h.store.inject({
        op: 'putIfAbsent',
        key: `${shardManifestPrefix('lostack', 0)}*`,
        fault: 'lostAck',
        times: 2,
      });
      h.startWorkers();
      await writeRows(h.sluice, 'lostack', eventRows(1, 10));
      await waitFor(async () => (await manifest('lostack')).committed.length === 1, {
        message: 'generation 1 committed',
      });
      expect(lost.hits).toBe(2);
      const m = await manifest('lostack');
      expect(m.poison).toBeNull();
      expect(m.committed.map((c) => c.generation)).toEqual([1]);
      expect(await readAll(h.sluice, 'lostack')).toEqual(eventRows(1, 10));
    });
  });

  describe('with the default-shaped budget (8 retries)', () => {
    beforeEach(() => setup({ flush: { maxRetries: 8, retryBaseMs: 5, retryMaxMs: 40 } }));

    it('I6/I7/I8: a permanently broken store poisons the shard; reopen after healing loses nothing', async () => {
      await firstGenerationCommitted('broken');

      const broken = h.store.inject({
        op: 'put',
        key: `${generationPrefix('broken', 0)}*`,
        fault: 'fail',
        permanent: true,
      });
      await writeGeneration('broken', 11, 20, 2);
      await waitFor(async () => (await deadLetters.count()) === 1, {
        message: 'the dead letter',
        timeoutMs: 20_000,
      });

      expect(broken.hits).toBe(9);
      const [letter] = await deadLetters.getJobs(['waiting']);
      expect(letter?.data).toMatchObject({
        queue: 'flush',
        target: 'broken/0',
        attempts: 9,
        error: { code: 'STORE_UNAVAILABLE' },
      });
      expect(letter?.data.stack).toContain('writeGeneration');

      const poisoned = await manifest('broken');
      expect(poisoned.poison).toMatchObject({ code: 'STORE_UNAVAILABLE', generation: 2 });
      const fail = { code: 'SHARD_POISONED', details: { poison: { generation: 2 } } };
      await expect(writeRows(h.sluice, 'broken', eventRows(21, 22))).rejects.toMatchObject(fail);
      await expect(h.sluice.reads.scan('broken', { limit: 10 })).rejects.toMatchObject(fail);
      await expect(h.sluice.reads.lookup('broken', 1)).rejects.toMatchObject(fail);
      await expect(h.sluice.shards.seal('broken', 0)).rejects.toMatchObject(fail);
      const stats = await h.sluice.shards.stats('broken', 0);
      expect(stats.poison).toMatchObject({ code: 'STORE_UNAVAILABLE', generation: 2 });
      expect(stats.sealed.map((g) => g.generation)).toEqual([2]);

      const hitsAtPoison = broken.hits;
      await h.scheduler.requestFlush('broken', 0);
      await waitFor(async () => (await h.scheduler.flush.getJobs(['failed'])).length >= 2, {
        message: 'queued flush failed',
      });
      const queued = (await h.scheduler.flush.getJobs(['failed'])).find((j) =>
        j.failedReason.includes('SHARD_POISONED'),
      );
      expect(queued?.attemptsMade).toBe(1);
      expect(broken.hits).toBe(hitsAtPoison);

      broken.remove();
      await h.sluice.shards.reopen('broken', 0);
      await waitFor(async () => (await manifest('broken')).committed.length === 2, {
        message: 'generation 2 after reopen',
      });
      const reopened = await manifest('broken');
      expect(reopened.poison).toBeNull();
      expect(reopened.committed.map((c) => c.generation)).toEqual([1, 2]);
      await writeRows(h.sluice, 'broken', eventRows(21, 22));
      expect(await readAll(h.sluice, 'broken')).toEqual(eventRows(1, 22));
      expect(await lookupJson(h.sluice, 'broken', 15)).toEqual(eventRows(15, 15)[0]);
    });

    it('I6: an error no retry can clear poisons at once without spending the retry budget', async () => {
      await h.createTable(eventsTable('corrupt'));
      const corrupt = h.store.inject({
        op: 'get',
        key: `${walPrefix('corrupt', 0)}*`,
        fault: 'fail',
        code: 'DATA_CORRUPT',
        permanent: true,
      });
      await writeRows(h.sluice, 'corrupt', eventRows(1, 5));
      h.startWorkers();
      await waitFor(async () => (await deadLetters.count()) === 1, { message: 'the dead letter' });
      await sleep(200);
      // The range read once in the generation's turn, and once ahead of it beside the
      // manifest's read (the seal ran in this process): no retry read it again.
      expect(corrupt.hits).toBe(2);
      const [letter] = await deadLetters.getJobs(['waiting']);
      expect(letter?.data).toMatchObject({ attempts: 1, error: { code: 'DATA_CORRUPT' } });
      expect((await manifest('corrupt')).poison).toMatchObject({ code: 'DATA_CORRUPT', generation: 1 });
    });

    it('I6: transient failures on successive generations never add up to a poison; each generation has its own budget', async () => {
      await h.createTable(eventsTable('spread'));
      // Five generations sealed before any flush worker runs: one flush job takes them all.
      for (let g = 1; g <= 5; g++) {
        await writeRows(h.sluice, 'spread', eventRows(g * 10 - 9, g * 10));
        await h.sluice.shards.seal('spread', 0);
      }
      expect((await manifest('spread')).sealed.map((s) => s.generation)).toEqual([1, 2, 3, 4, 5]);
      // Ten failures in all, more than the job's nine attempts; two for each generation.
      const faults = [1, 2, 3, 4, 5].map((g) =>
        h.store.inject({ op: 'put', key: GEN('spread', g), fault: 'fail', times: 2 }),
      );

      h.startWorkers(['flush']);
      await waitFor(
        async () => {
          const m = await manifest('spread');
          return m.committed.length === 5 || m.poison !== null;
        },
        { message: 'every generation committed or the shard poisoned', timeoutMs: 20_000 },
      );

      const after = await manifest('spread');
      expect(after.poison).toBeNull();
      expect(after.committed.map((c) => c.generation)).toEqual([1, 2, 3, 4, 5]);
      expect(faults.map((f) => f.hits)).toEqual([2, 2, 2, 2, 2]);
      expect(await deadLetters.count()).toBe(0);
      expect(await readAll(h.sluice, 'spread')).toEqual(eventRows(1, 50));
    });

    it('I6: a generation that fails right after its predecessor committed still gets exactly 9 tries', async () => {
      await h.createTable(eventsTable('after'));
      for (let g = 1; g <= 2; g++) {
        await writeRows(h.sluice, 'after', eventRows(g * 10 - 9, g * 10));
        await h.sluice.shards.seal('after', 0);
      }
      const broken = h.store.inject({ op: 'put', key: GEN('after', 2), fault: 'fail', permanent: true });

      h.startWorkers(['flush']);
      await waitFor(async () => (await deadLetters.count()) === 1, {
        message: 'the dead letter',
        timeoutMs: 20_000,
      });

      expect(broken.hits).toBe(9);
      const poisoned = await manifest('after');
      expect(poisoned.committed.map((c) => c.generation)).toEqual([1]);
      expect(poisoned.poison).toMatchObject({ code: 'STORE_UNAVAILABLE', generation: 2 });
    });

    it('I7: reopening a healthy shard is refused', async () => {
      await h.createTable(eventsTable('healthy'));
      await expect(h.sluice.shards.reopen('healthy', 0)).rejects.toMatchObject({
        code: 'SHARD_NOT_POISONED',
      });
    });
  });
});

describe('flush failures on a table lane (docs/table-wal-lane.md, §4)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness({ flush: { maxRetries: 1000, retryBaseMs: 10, retryMaxMs: 50 } });
  });

  afterEach(() => h.close());

  it("I5: a failing generation on shard 2 holds back no other shard's sections of the same entries", async () => {
    await h.createTable(laneTable('lanehol', 4));
    const broken = h.store.inject({ op: 'put', key: generationKey('lanehol', 2, 1), fault: 'fail' });
    h.startWorkers();
    const rows = eventRows(1, 80);
    await writeRows(h.sluice, 'lanehol', eventRows(1, 40));
    await writeRows(h.sluice, 'lanehol', eventRows(41, 80));
    const manifest = (shard: number) => h.parts.manifests.read('lanehol', shard);
    await waitFor(
      async () => {
        for (const shard of [0, 1, 3]) if ((await manifest(shard)).walCursor < 2) return false;
        return true;
      },
      { message: 'shards 0, 1 and 3 flushed both entries' },
    );
    await waitFor(() => broken.hits >= 3, { message: "shard 2's generation 1 retried" });
    for (const shard of [0, 1, 3]) {
      expect(await l0Rows(h, 'lanehol', shard)).toEqual(await rowsOfShard(h, 'lanehol', shard, rows));
    }
    const held = await manifest(2);
    expect([held.walCursor, held.committed, held.sealed[0]?.generation]).toEqual([0, [], 1]);

    h.store.heal();
    await waitFor(async () => (await manifest(2)).walCursor === 2, {
      message: 'shard 2 flushed after healing',
    });
    expect(await l0Rows(h, 'lanehol', 2)).toEqual(await rowsOfShard(h, 'lanehol', 2, rows));
  });
});

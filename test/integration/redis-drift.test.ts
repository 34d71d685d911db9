import { Queue, UnrecoverableError } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushFailureHandler } from '../../jobs/flush.ts';
import type { DeadLetter } from '../../queue/dead-letter.ts';
import { DeadLetterQueue } from '../../queue/dead-letter.ts';
import { QUEUE, queueOptions } from '../../queue/queues.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { deleteKeys } from '../support/redis.ts';
import { eventRows, eventsTable, lookupJson, readAll, writeRows } from '../support/rows.ts';
import { l0Rows, laneTable, rowsOfShard, sealAndFlush } from '../support/table-lane.ts';

describe('Redis state that drifted from the store (I2, I7, I18)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  async function generation(table: string, from: number, to: number) {
    await writeRows(h.sluice, table, eventRows(from, to));
    await h.sluice.shards.seal(table, 0);
    await h.sluice.shards.flush(table, 0);
  }

  it('I2: a Redis restored from an old snapshot never hands out a seq at or below the sealed range', async () => {
    await h.createTable(eventsTable('snapshot'));
    await generation('snapshot', 1, 10);
    await generation('snapshot', 11, 20);
    await h.redis.set(h.shardKeys('snapshot', 0).seq, 0);
    const ack = await writeRows(h.sluice, 'snapshot', eventRows(21, 21));
    expect(ack.shards[0]!.seq).toBe(3);
    expect(await lookupJson(h.sluice, 'snapshot', 21)).toEqual(eventRows(21, 21)[0]);
    await h.sluice.shards.seal('snapshot', 0);
    await h.sluice.shards.flush('snapshot', 0);
    expect(await readAll(h.sluice, 'snapshot')).toEqual(eventRows(1, 21));
  });

  it('I18: a sealed count left too high by a crash is set right by reconcile, and writes flow again', async () => {
    h.config.limits.maxUnflushedGenerations = 2;
    await h.createTable(eventsTable('drift'));
    await generation('drift', 1, 10);
    const keys = h.shardKeys('drift', 0);
    await h.redis.set(keys.sealedCount, 5);
    await h.redis.set(keys.unsealedBytes, 10 ** 12);
    await expect(writeRows(h.sluice, 'drift', eventRows(11, 12))).rejects.toMatchObject({
      code: 'BACKPRESSURE',
    });
    await h.sluice.shards.reconcile('drift');
    expect(await h.redis.get(keys.sealedCount)).toBe('0');
    await writeRows(h.sluice, 'drift', eventRows(11, 12));
    expect(await readAll(h.sluice, 'drift')).toEqual(eventRows(1, 12));
  });

  it('I18: a sealed count from an older manifest version never overwrites a newer one', async () => {
    await h.createTable(eventsTable('versions'));
    await h.parts.sealCounters.setSealedCount('versions', 0, 1, 7);
    await h.parts.sealCounters.setSealedCount('versions', 0, 4, 6);
    expect(await h.redis.get(h.shardKeys('versions', 0).sealedCount)).toBe('1');
  });

  it('I6/I7: a flush failed by BullMQ itself (stalled too often) still poisons the shard and is dead-lettered', async () => {
    await h.createTable(eventsTable('stalled'));
    await writeRows(h.sluice, 'stalled', eventRows(1, 5));
    await h.sluice.shards.seal('stalled', 0);
    const deadLetters = new DeadLetterQueue(h.config);
    const letters = new Queue<DeadLetter>(QUEUE.deadLetter, queueOptions(h.config, QUEUE.deadLetter));
    try {
      await h.scheduler.requestFlush('stalled', 0);
      const [job] = await h.scheduler.flush.getJobs(['waiting', 'delayed']);
      await flushFailureHandler(h.sluice, deadLetters)(
        job,
        new UnrecoverableError('job stalled more than allowable limit'),
      );
      expect((await h.parts.manifests.read('stalled', 0)).poison).toMatchObject({
        code: 'INTERNAL',
        generation: 1,
      });
      await expect(writeRows(h.sluice, 'stalled', eventRows(6, 6))).rejects.toMatchObject({
        code: 'SHARD_POISONED',
      });
      const [letter] = await letters.getJobs(['waiting']);
      expect(letter?.data).toMatchObject({
        queue: 'flush',
        target: 'stalled/0',
        error: { code: 'INTERNAL' },
      });
      expect(letter?.data.error.message).toContain('stalled more than allowable limit');
    } finally {
      await deadLetters.close();
      await letters.close();
    }
  });
});

describe('Redis lost under a table lane (docs/table-wal-lane.md, §2 "Where sections are known")', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });

  afterEach(() => h.close());

  it('I2: Redis emptied after a 3-shard ack: every shard seals and flushes its section from the footer', async () => {
    await h.createTable(laneTable('lanelost', 3));
    const rows = eventRows(1, 30);
    const ack = await writeRows(h.sluice, 'lanelost', rows);
    expect(ack.shards.map((s) => s.shard)).toEqual([0, 1, 2]);
    await h.parts.wal.settle();
    await deleteKeys(h.redis, `${h.namespace.prefix}*`);

    await sealAndFlush(h, 'lanelost', 3);
    for (let shard = 0; shard < 3; shard++) {
      const manifest = await h.parts.manifests.read('lanelost', shard);
      expect([manifest.sealedThrough, manifest.walCursor, manifest.sealed]).toEqual([1, 1, []]);
      expect(await l0Rows(h, 'lanelost', shard)).toEqual(await rowsOfShard(h, 'lanelost', shard, rows));
    }
    expect(await readAll(h.sluice, 'lanelost')).toEqual(rows);
  });
});

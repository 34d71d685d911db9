import { Queue, UnrecoverableError } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushFailureHandler, flushProcessor } from '../../jobs/flush.ts';
import { DeadLetterQueue } from '../../queue/dead-letter.ts';
import { QUEUE, queueOptions, type ShardJobData } from '../../queue/queues.ts';
import { collectTable } from '../../shared/lsm/gc.ts';
import { poison } from '../../shared/lsm/poison.ts';
import { walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';

const DATA: ShardJobData = { table: 'zombie', shard: 0 };

describe('flush (I11, defect 3: a zombie flush poisons a healthy shard)', () => {
  let h: Harness;
  let flushes: Queue<ShardJobData>;
  let deadLetters: DeadLetterQueue;
  let deadLetterQueue: Queue;

  beforeEach(async () => {
    h = await createHarness();
    flushes = new Queue<ShardJobData>(QUEUE.flush, queueOptions(h.config, QUEUE.flush));
    deadLetters = new DeadLetterQueue(h.config);
    deadLetterQueue = new Queue(QUEUE.deadLetter, queueOptions(h.config, QUEUE.deadLetter));
    await h.createTable(eventsTable('zombie'));
    await writeRows(h.sluice, 'zombie', eventRows(1, 10));
    await h.sluice.shards.seal('zombie', 0);
  });

  afterEach(async () => {
    await Promise.all([flushes.close(), deadLetters.close(), deadLetterQueue.close()]);
    await h.close();
  });

  /** GC as if the grace period were long over, so the committed WAL range goes at once. */
  async function collectEverything() {
    const table = await h.sluice.tables.describe('zombie');
    await collectTable(h.parts, table, { now: Date.now() + 10 * 3_600_000, graceMs: 1000 });
    expect(await h.store.get(walKey('zombie', 0, 1))).toBeNull();
  }

  async function expectHealthy() {
    expect((await h.sluice.shards.stats('zombie', 0)).poison).toBeNull();
    expect(await h.parts.poisonCache.cachedPoison('zombie', 0)).toBeNull();
    expect(await deadLetterQueue.count()).toBe(0);
    await writeRows(h.sluice, 'zombie', eventRows(11, 12));
    expect((await readAll(h.sluice, 'zombie')).map((r) => r.id).sort()).toHaveLength(12);
  }

  it('a run stalled before its WAL reads, woken after another run committed and GC removed the range, poisons nothing', async () => {
    const gated = new GatedStore(h.store);
    const zombie = h.otherProcess(gated).sluice;
    const gate = gated.hold('get', /\/wal\//);
    const job = await flushes.add('flush', DATA, { attempts: 1 });
    const run = flushProcessor(zombie, deadLetters)(job);
    await gate.reached;

    expect(await h.sluice.shards.flush('zombie', 0)).toEqual([1]);
    await collectEverything();
    gate.release();

    await expect(run).resolves.toEqual({ committed: [] });
    await expectHealthy();
  });

  it('the fail-stop of a generation another run committed by now poisons nothing', async () => {
    expect(await h.sluice.shards.flush('zombie', 0)).toEqual([1]);
    const outcome = await poison(
      h.parts,
      { table: 'zombie', shard: 0 },
      {
        code: 'DATA_MISSING',
        generation: 1,
        cause: 'late',
      },
    );
    expect(outcome.poisoned).toBe(false);
    await expectHealthy();
  });

  it('a flush job BullMQ fails for good after all its generations committed leaves the shard open', async () => {
    const job = await flushes.add('flush', DATA, { attempts: 1 });
    expect(await h.sluice.shards.flush('zombie', 0)).toEqual([1]);
    await flushFailureHandler(h.sluice, deadLetters)(
      job,
      new UnrecoverableError('job stalled more than allowable limit'),
    );
    await expectHealthy();
  });
});

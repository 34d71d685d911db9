import type { Job, Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeProcessor } from '../../jobs/merge.ts';
import { TABLE_WORK_BACKOFF_MS, type TableJobData } from '../../queue/queues.ts';
import { SluiceError } from '../../shared/errors.ts';
import { NO_BACKLOG } from '../../shared/lsm/backlog.ts';
import { queueBudgetExceeded } from '../../shared/metrics.ts';
import { withTimeBudget } from '../../shared/scheduler/time-budget.ts';
import { generationPrefix } from '../../shared/table/paths.ts';
import { counterSince } from '../support/counter-since.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { prefixGlob } from '../support/key-globs.ts';
import { captureLog } from '../support/log-capture.ts';
import { deleteKeys, keysMatching } from '../support/redis.ts';
import {
  eventRows,
  eventsTable,
  flushedGeneration,
  pendingGenerations,
  readAll,
  writeRows,
} from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

/** A lane job with nothing to merge and nothing due to optimize. */
const mergedNothing = {
  merged: { generations: 0, rows: 0, lanceVersion: null },
  pending: NO_BACKLOG,
  retention: null,
  optimize: null,
};

const L0 = (table: string) => `${prefixGlob(generationPrefix, table, '*')}*.arrow`;

describe('merge jobs: budgets, ledger, drain (I11, I14, I15, I16)', () => {
  let h: Harness;

  async function setup(scheduler: Record<string, number> = {}) {
    h = await createHarness({ scheduler });
  }
  afterEach(() => h.close());

  /** Committed generations not yet merged (pending counts sealed ones too). */
  async function flushed(table: string): Promise<number> {
    const def = await h.sluice.tables.describe(table);
    let total = 0;
    for (let shard = 0; shard < def.shards; shard++) {
      const stats = await h.sluice.shards.stats(table, shard);
      total += stats.committed.filter((c) => c.generation > stats.mergedThrough).length;
    }
    return total;
  }

  /** A merge job as BullMQ would hand it to the processor, for runs the test controls. */
  function mergeJob(table: string, overrides: Partial<Job> = {}): Job<TableJobData> {
    const now = Date.now();
    return {
      id: 'test-job',
      queueName: 'merge',
      data: { table, manual: false },
      attemptsMade: 0,
      opts: { attempts: 3 },
      timestamp: now,
      processedOn: now,
      updateProgress: async () => {},
      ...overrides,
    } as unknown as Job<TableJobData>;
  }

  /** The job once completed or finally failed (a failed attempt waiting out its backoff is neither). */
  async function settled(queue: Queue, id: string): Promise<Job> {
    return waitFor(
      async () => {
        const state = await queue.getJobState(id);
        return state === 'completed' || state === 'failed' ? queue.getJob(id) : null;
      },
      { message: `job ${id} finished`, timeoutMs: 20_000 },
    );
  }

  describe('I16 time budgets', () => {
    it('no-progress watchdog aborts a merge stalled inside a store call; the abort reaches the call', async () => {
      await setup({ mergeNoProgressSeconds: 1, mergeCeilingSeconds: 60 });
      await h.createTable(eventsTable('stall'));
      await flushedGeneration(h.sluice, 'stall', eventRows(1, 10));
      const stall = h.store.inject({ op: 'get', key: L0('stall'), latencyMs: 60_000 });
      const started = Date.now();
      const error = await mergeProcessor(h.sluice)(mergeJob('stall')).catch((err: unknown) => err);
      const elapsed = Date.now() - started;
      expect(stall.hits).toBe(1);
      // The store call ended with the abort, not after its 60 s.
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(5_000);
      expect(error).toMatchObject({ code: 'TIMEOUT', details: { budget: 'no-progress' } });
      expect((error as SluiceError).cause).toMatchObject({ code: 'ABORTED', details: { op: 'get' } });
      const entry = await h.parts.ledger.get('merge', 'stall');
      expect(entry).toMatchObject({ failures: 1, class: 'deadline', lastError: { code: 'TIMEOUT' } });
      expect(await pendingGenerations(h.sluice, 'stall')).toBe(1);
    });

    it('lock renewals are not progress: a worker-run merge stalled in a store call is aborted, then retried', async () => {
      h = await createHarness({
        scheduler: { mergeNoProgressSeconds: 2, mergeCeilingSeconds: 60 },
        workers: { lockDurationMs: 1_000, stalledIntervalMs: 1_000 },
      });
      await h.createTable(eventsTable('renewed'));
      await flushedGeneration(h.sluice, 'renewed', eventRows(1, 10));
      const stall = h.store.inject({ op: 'get', key: L0('renewed'), latencyMs: 60_000, times: 1 });
      h.startWorkers(['merge']);
      const id = await h.scheduler.requestMerge('renewed', { manual: false });
      // The lock (1 s) is renewed every 0.5 s while the call hangs; only the 2 s no-progress limit ends it.
      const failed = await waitFor(() => h.parts.ledger.get('merge', 'renewed'), {
        message: 'the stalled attempt recorded as a merge failure',
      });
      expect(failed).toMatchObject({ failures: 1, class: 'deadline' });
      expect(stall.hits).toBe(1);
      const job = await settled(h.scheduler.merge, id);
      expect(job.attemptsMade).toBe(2);
      expect(await job.getState()).toBe('completed');
      expect(await pendingGenerations(h.sluice, 'renewed')).toBe(0);
      expect(await h.parts.ledger.get('merge', 'renewed')).toBeNull();
    });

    it('the execution ceiling aborts a merge that keeps making slow progress', async () => {
      await setup({ mergeNoProgressSeconds: 60, mergeCeilingSeconds: 1 });
      await h.createTable(eventsTable('ceiling'));
      for (let g = 0; g < 4; g++)
        await flushedGeneration(h.sluice, 'ceiling', eventRows(g * 10 + 1, g * 10 + 10));
      const slow = h.store.inject({ op: 'get', key: L0('ceiling'), latencyMs: 400 });
      const error = await withTimeBudget({ ceilingMs: 1_000, noProgressMs: 60_000 }, 'merge', (options) =>
        h.sluice.tableWork.merge('ceiling', options),
      ).catch((err: unknown) => err);
      expect(error).toMatchObject({ code: 'TIMEOUT', details: { budget: 'ceiling', limitMs: 1_000 } });
      expect(slow.hits).toBe(3);
      expect((await h.parts.bases.read('ceiling')).version).toBe(0);
    });

    it('a queue wait past mergeQueueBudgetSeconds is logged and counted, and the merge still runs', async () => {
      await setup({ mergeQueueBudgetSeconds: 1 });
      await h.createTable(eventsTable('waited'));
      await flushedGeneration(h.sluice, 'waited', eventRows(1, 5));
      const captured = captureLog();
      const exceeded = await counterSince(queueBudgetExceeded, { kind: 'merge' });
      const run = (queueWaitMs: number) =>
        h.sluice.tableWork.run(
          { kind: 'merge', table: 'waited', queueWaitMs, log: captured.log },
          (options) => h.sluice.tableWork.merge('waited', options),
        );
      expect((await run(900)).status).toBe('done');
      expect(await exceeded()).toBe(0);
      expect(await run(2_500)).toEqual({
        status: 'done',
        result: { merged: [], rows: 0, left: NO_BACKLOG, lanceVersion: null, rolledBack: [] },
      });
      expect(await exceeded()).toBe(1);
      expect(captured.warnings()).toEqual([
        expect.objectContaining({ kind: 'merge', waitedSeconds: 2.5, budgetSeconds: 1 }),
      ]);
      // The processor measures the wait from the job's own times.
      await mergeProcessor(h.sluice)(mergeJob('waited', { timestamp: Date.now() - 3_000 }));
      expect(await exceeded()).toBe(2);
    });
  });

  describe('failure ledger', () => {
    it('I14: a merge failure is counted as a merge failure and poisons no shard', async () => {
      await setup();
      await h.createTable(eventsTable('failing', { shards: 2 }));
      await flushedGeneration(h.sluice, 'failing', eventRows(1, 20));
      const broken = h.store.inject({ op: 'get', key: L0('failing'), fault: 'fail' });
      for (let n = 1; n <= 3; n++) {
        await expect(mergeProcessor(h.sluice)(mergeJob('failing', { attemptsMade: n - 1 }))).rejects.toThrow(
          /STORE_UNAVAILABLE|injected/,
        );
      }
      expect(await h.parts.ledger.get('merge', 'failing')).toMatchObject({ kind: 'merge', failures: 3 });
      expect(await h.parts.ledger.isCoolingDown('merge', 'failing')).toBe(true);
      expect(await h.parts.ledger.get('compact', 'failing')).toBeNull();
      for (let shard = 0; shard < 2; shard++) {
        expect((await h.sluice.shards.stats('failing', shard)).poison).toBeNull();
      }
      // Writes and flushes of the table go on.
      await flushedGeneration(h.sluice, 'failing', eventRows(21, 30));
      broken.remove();
      expect(await readAll(h.sluice, 'failing')).toEqual(eventRows(1, 30));
    });

    it('a missing L0 file fails at once as data-or-configuration, needs attention, and nothing is repaired', async () => {
      await setup();
      await h.createTable(eventsTable('missing'));
      await flushedGeneration(h.sluice, 'missing', eventRows(1, 5));
      const [l0] = (await h.sluice.shards.stats('missing', 0)).committed;
      await h.store.delete(l0!.path);
      const error = await mergeProcessor(h.sluice)(mergeJob('missing')).catch((err: unknown) => err);
      // UnrecoverableError: BullMQ spends no retry on it.
      expect(error).toMatchObject({ name: 'UnrecoverableError', cause: { code: 'DATA_MISSING' } });
      expect(await h.parts.ledger.get('merge', 'missing')).toMatchObject({
        failures: 1,
        class: 'data-or-configuration',
        needsAttention: true,
      });
      expect(await h.store.head(l0!.path)).toBeNull();
      expect((await h.sluice.shards.stats('missing', 0)).poison).toBeNull();
    });

    it('I15: a manual merge runs while the table is in cooldown, and its success clears the cooldown', async () => {
      await setup();
      await h.createTable(eventsTable('cooling'));
      await flushedGeneration(h.sluice, 'cooling', eventRows(1, 10));
      for (let n = 0; n < 3; n++) {
        await h.parts.ledger.recordFailure('merge', 'cooling', new SluiceError('STORE_UNAVAILABLE', 'down'));
      }
      expect(await h.parts.ledger.isCoolingDown('merge', 'cooling')).toBe(true);
      h.startWorkers(['merge']);
      const id = await h.scheduler.requestMerge('cooling', { manual: true });
      const job = await settled(h.scheduler.merge, id);
      expect(job.data).toEqual({ table: 'cooling', manual: true });
      expect(job.returnvalue).toMatchObject({
        status: 'done',
        merged: { generations: 1, rows: 10 },
        pending: NO_BACKLOG,
      });
      expect(await pendingGenerations(h.sluice, 'cooling')).toBe(0);
      expect(await h.parts.ledger.isCoolingDown('merge', 'cooling')).toBe(false);
      expect(await h.parts.ledger.get('merge', 'cooling')).toBeNull();
      expect((await h.parts.ledger.listCooldowns()).items).toEqual([]);
    });
  });

  describe('I11/I12 one job per table, idempotent', () => {
    it('a merge killed after its commit but before the job was acked converges when it runs again', async () => {
      await setup();
      await h.createTable(eventsTable('redelivered', { shards: 2 }));
      await flushedGeneration(h.sluice, 'redelivered', eventRows(1, 20));
      await flushedGeneration(h.sluice, 'redelivered', eventRows(11, 30, 2));
      const job = mergeJob('redelivered');
      const first = await mergeProcessor(h.sluice)(job);
      const again = await mergeProcessor(h.sluice)(job);
      expect(first).toMatchObject({
        status: 'done',
        merged: { generations: 4, rows: 40 },
        optimize: { reason: 'caught-up' },
      });
      expect(again).toEqual({ status: 'done', ...mergedNothing });
      const base = await h.parts.bases.read('redelivered');
      // The merge's record, then the optimize's that followed it in the same job.
      expect(base.version).toBe(2);
      expect((await h.sluice.reads.stats(await h.sluice.tables.describe('redelivered'))).baseRows).toBe(30);
      expect(await readAll(h.sluice, 'redelivered', 7)).toEqual([
        ...eventRows(1, 10),
        ...eventRows(11, 30, 2),
      ]);
    });

    it('two deliveries of one merge at once commit it once', async () => {
      await setup();
      await h.createTable(eventsTable('zombie'));
      await flushedGeneration(h.sluice, 'zombie', eventRows(1, 20));
      const job = mergeJob('zombie');
      const outcomes = await Promise.all([mergeProcessor(h.sluice)(job), mergeProcessor(h.sluice)(job)]);
      const merged = outcomes.map((o) => (o.status === 'done' ? o.merged.generations : -1));
      expect(merged.sort()).toEqual([0, 1]);
      // Recorded once: the watermark at generation 1 (an optimize may or may not have followed,
      // as the other delivery's commits landed among its own).
      expect((await h.parts.bases.read('zombie')).mergedThrough).toEqual({ '0': 1 });
      expect(await readAll(h.sluice, 'zombie')).toEqual(eventRows(1, 20));
    });

    it('asking twice while a merge waits yields one job; a request while it runs is queued behind it', async () => {
      await setup();
      await h.createTable(eventsTable('dedup'));
      await flushedGeneration(h.sluice, 'dedup', eventRows(1, 5));
      const first = await h.scheduler.requestMerge('dedup', { manual: false });
      expect(await h.scheduler.requestMerge('dedup', { manual: false })).toBe(first);
      expect(await h.scheduler.merge.getJobCounts('waiting')).toEqual({ waiting: 1 });
      const slow = h.store.inject({ op: 'get', key: L0('dedup'), latencyMs: 1_000, times: 1 });
      h.startWorkers(['merge']);
      await waitFor(() => slow.hits === 1, { message: 'the first merge running' });
      const behind = await h.scheduler.requestMerge('dedup', { manual: true });
      expect(behind).not.toBe(first);
      expect((await settled(h.scheduler.merge, first)).returnvalue).toMatchObject({ status: 'done' });
      const follow = await settled(h.scheduler.merge, behind);
      expect(follow.data).toEqual({ table: 'dedup', manual: true });
      expect(follow.returnvalue).toEqual({ status: 'done', ...mergedNothing });
    });

    it('a manual request replaces a merge waiting out its backoff, so it runs now', async () => {
      await setup();
      await h.createTable(eventsTable('backoff'));
      await flushedGeneration(h.sluice, 'backoff', eventRows(1, 5));
      h.store.inject({ op: 'get', key: L0('backoff'), fault: 'fail', times: 1 });
      h.startWorkers(['merge']);
      const failing = await h.scheduler.requestMerge('backoff', { manual: false });
      await waitFor(async () => (await h.scheduler.merge.getJobState(failing)) === 'delayed', {
        message: 'the failed merge waiting out its 2 s backoff',
      });
      const failedAttempt = (await h.scheduler.merge.getJob(failing))!.processedOn!;
      const manual = await h.scheduler.requestMerge('backoff', { manual: true });
      expect(manual).not.toBe(failing);
      const done = await settled(h.scheduler.merge, manual);
      expect(done.returnvalue).toMatchObject({ status: 'done' });
      // It started before the failed attempt's backoff could have ended: it did not wait it out.
      expect(done.processedOn!).toBeLessThan(failedAttempt + TABLE_WORK_BACKOFF_MS);
      expect(await h.scheduler.merge.getJob(failing)).toBeUndefined();
      expect(await pendingGenerations(h.sluice, 'backoff')).toBe(0);
    });
  });

  describe('drain', () => {
    it('no merge starts while drained, writes and flushes continue, undrain resumes', async () => {
      await setup();
      const def = await h.createTable(eventsTable('drained', { shards: 2 }));
      h.startWorkers(['seal', 'flush', 'merge']);
      await h.parts.drains.setDrain(def, true);
      await writeRows(h.sluice, 'drained', eventRows(1, 40));
      await waitFor(async () => (await flushed('drained')) === 2, { message: 'both shards flushed' });
      const skipped = await settled(
        h.scheduler.merge,
        await h.scheduler.requestMerge('drained', { manual: false }),
      );
      expect(skipped.returnvalue).toEqual({ status: 'drained' });
      expect((await h.parts.bases.read('drained')).version).toBe(0);
      expect(await h.parts.ledger.get('merge', 'drained')).toBeNull();
      expect(await readAll(h.sluice, 'drained')).toEqual(eventRows(1, 40));

      await h.parts.drains.setDrain(def, false);
      const resumed = await settled(
        h.scheduler.merge,
        await h.scheduler.requestMerge('drained', { manual: false }),
      );
      expect(resumed.returnvalue).toMatchObject({ status: 'done' });
      expect(await pendingGenerations(h.sluice, 'drained')).toBe(0);
      expect(await readAll(h.sluice, 'drained')).toEqual(eventRows(1, 40));
    });

    it('the merge already running when the table is drained finishes', async () => {
      await setup();
      const def = await h.createTable(eventsTable('running'));
      await flushedGeneration(h.sluice, 'running', eventRows(1, 10));
      const slow = h.store.inject({ op: 'get', key: L0('running'), latencyMs: 500, times: 1 });
      const running = mergeProcessor(h.sluice)(mergeJob('running'));
      await waitFor(() => slow.hits === 1, { message: 'the merge reading its inputs' });
      await h.parts.drains.setDrain(def, true);
      expect(await running).toMatchObject({ status: 'done', merged: { generations: 1, rows: 10 } });
      await flushedGeneration(h.sluice, 'running', eventRows(11, 20));
      expect(await mergeProcessor(h.sluice)(mergeJob('running'))).toEqual({ status: 'drained' });
    });

    it('the flag survives a Redis loss: the store copy answers when Redis has none', async () => {
      await setup();
      const def = await h.createTable(eventsTable('durable'));
      expect(await h.parts.drains.isDrained('durable')).toBe(false);
      await h.parts.drains.setDrain(def, true);
      // Redis restarted empty: every key of the namespace is gone.
      await deleteKeys(h.redis, `${h.config.redisPrefix}*`);
      expect(await keysMatching(h.redis, `${h.config.redisPrefix}*`)).toEqual([]);
      expect(await h.parts.drains.isDrained('durable')).toBe(true);
      await h.parts.drains.setDrain(def, false);
      expect(await h.parts.drains.isDrained('durable')).toBe(false);
    });
  });
});

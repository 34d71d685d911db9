/**
 * Flush job → `flushShard`, and the fail-stop of I6: when the last attempt fails, or the
 * error is one no retry can clear, the shard is poisoned and the job is recorded in the
 * dead-letter queue before BullMQ marks it failed. A job that finds its shard already
 * poisoned fails at once without spending its budget (I7).
 *
 * The budget is a generation's, not the job's: one job flushes every sealed generation of
 * its shard, so a run that moved past at least one generation before it failed hands the
 * failed generation to a fresh job (see `handOnAfterProgress`) instead of spending an
 * attempt that earlier generations' failures already wore down.
 */
import type { Job } from 'bullmq';
import type { DeadLetterQueue } from '../queue/dead-letter.ts';
import { type ShardJobData, shardTarget } from '../queue/queues.ts';
import { backoffDelay } from '../queue/retry-policy.ts';
import { isSluiceError, SluiceError, toSluiceError } from '../shared/errors.ts';
import { flushRetries } from '../shared/metrics.ts';
import { ShardPoisonedError } from '../shared/shard-poison.ts';
import type { Sluice } from '../shared/sluice.ts';
import type { WorkProgress } from '../shared/work/work-progress.ts';
import { failNow, isLastAttempt } from './job-failure.ts';

export function flushProcessor(sluice: Sluice, deadLetters: DeadLetterQueue) {
  return async (job: Job<ShardJobData>) => {
    const { table, shard } = job.data;
    const jobLog = sluice.log.child({ queue: job.queueName, jobId: job.id, table, shard });
    let log = jobLog;
    let advanced = false;
    let generation: number | null = null;
    log.debug({ attempt: job.attemptsMade + 1 }, 'flush started');
    const started = performance.now();
    let progress: WorkProgress = { rowsDone: 0, rowsTotal: 0, bytesDone: 0, bytesTotal: 0 };
    try {
      const committed = await sluice.shards.flush(table, shard, {
        onGeneration: (g) => {
          generation = g;
          log = jobLog.child({ generation: g });
          log.debug('flushing generation');
        },
        onWorkProgress: (next) => {
          progress = next;
          // Progress is for people watching; a Redis hiccup while reporting it must not fail the flush.
          job
            .updateProgress({ ...next })
            .catch((err: unknown) => log.debug({ err }, 'progress not reported'));
        },
        onCommitted: () => {
          advanced = true;
        },
      });
      if (committed.length > 0) {
        const durationMs = Math.round(performance.now() - started);
        jobLog.info(
          { generations: committed, rows: progress.rowsDone, bytes: progress.bytesDone, durationMs },
          'flush done',
        );
      }
      return { committed };
    } catch (err) {
      const error = toSluiceError(err);
      if (error.code === 'TABLE_NOT_FOUND') {
        // A dropped table: its data goes with the purge, and a poison would only write into it.
        log.info('table dropped; nothing to flush');
        return { committed: [], dropped: true };
      }
      if (error instanceof ShardPoisonedError) {
        // A redelivery of the job that poisoned the shard makes sure its dead letter exists.
        const { poison } = error;
        if (poison.jobId === String(job.id)) {
          const original = new SluiceError(poison.code, poison.cause, { generation: poison.generation });
          await deadLetters.record(job, shardTarget(job.data), original);
        }
        throw failNow(error);
      }
      if (advanced && (await handOnAfterProgress(sluice, job, error))) {
        log.warn({ err: error }, 'flush failed after committing earlier generations; a fresh job retries');
        flushRetries.inc();
        return { committed: [] };
      }
      if (!isLastAttempt(job, error)) {
        log.warn({ err: error, attempt: job.attemptsMade + 1 }, 'flush failed; will retry');
        flushRetries.inc();
        throw error;
      }
      log.error({ err: error, attempts: job.attemptsMade + 1 }, 'flush cannot succeed; poisoning shard');
      if (!(await failStop(sluice, deadLetters, job, error, generation))) {
        log.warn({ err: error }, 'flush failed on a generation another run committed; nothing to poison');
        return { committed: [] };
      }
      throw failNow(error);
    } finally {
      log.debug('flush ended');
    }
  };
}

/**
 * I6: the failed generation has had one try, so its budget goes on in a new flush job that
 * waits out the first backoff and has that try taken off its attempts. The job is active, so
 * the add is folded into its single follow-up (I12), which BullMQ queues when this run
 * completes; the shard's generations are still taken lowest first (I5). False when that one
 * try was the whole budget, or the error is one no retry can clear: the usual path decides.
 */
async function handOnAfterProgress(
  sluice: Sluice,
  job: Job<ShardJobData>,
  error: SluiceError,
): Promise<boolean> {
  const settings = sluice.config.flush;
  if (!error.retryable || settings.maxRetries < 1) return false;
  await sluice.shards.requestFlush(job.data.table, job.data.shard, {
    delayMs: backoffDelay(1, settings),
    triesSpent: 1,
  });
  return true;
}

/** I6/I7 (lsm/fail-stop.ts), the dead letter being this job's record of the failure. */
function failStop(
  sluice: Sluice,
  deadLetters: DeadLetterQueue,
  job: Job<ShardJobData>,
  error: SluiceError,
  generation: number | null,
): Promise<boolean> {
  const { table, shard } = job.data;
  return sluice.shards.failStop(table, shard, { error, generation, jobId: String(job.id) }, () =>
    recordDeadLetter(deadLetters, job, error),
  );
}

async function recordDeadLetter(deadLetters: DeadLetterQueue, job: Job<ShardJobData>, error: SluiceError) {
  await deadLetters.record(job, shardTarget(job.data), error);
}

/**
 * A flush can also fail for good where its processor never sees it: a job that stalled
 * more than BullMQ allows (its worker kept dying mid-flush, e.g. out of memory) is failed
 * by BullMQ itself. The worker's `failed` event applies the same fail-stop then, to the
 * lowest generation still sealed (lsm/fail-stop.ts).
 */
export function flushFailureHandler(sluice: Sluice, deadLetters: DeadLetterQueue) {
  return async (job: Job<ShardJobData> | undefined, err: Error): Promise<void> => {
    if (!job || !isFinalFailure(job, err) || isSluiceError(err.cause, 'SHARD_POISONED')) return;
    const error = new SluiceError(
      'INTERNAL',
      `flush failed outside its processor: ${err.message}`,
      {},
      { cause: err },
    );
    const { table, shard } = job.data;
    await sluice.shards.failStopOutside(table, shard, { error, jobId: String(job.id) }, () =>
      recordDeadLetter(deadLetters, job, error),
    );
  };
}

function isFinalFailure(job: Job, err: Error): boolean {
  return err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
}

/**
 * Runs the BullMQ workers of the named queues in this process. Each queue is its own
 * Worker, so a process can run any subset and each subset scales on its own.
 */
import { type Job, Worker } from 'bullmq';
import { DeadLetterQueue } from '../queue/dead-letter.ts';
import { QUEUE, queueOptions, WORKER_QUEUES, type WorkerQueue } from '../queue/queues.ts';
import { BACKOFF_TYPE, backoffDelay } from '../queue/retry-policy.ts';
import { keepSamplerScheduled } from '../queue/sampler-schedule.ts';
import type { Sluice } from '../shared/sluice.ts';
import { ActiveJobs } from './active-jobs.ts';
import { flushFailureHandler, flushProcessor } from './flush.ts';
import { mergeProcessor } from './merge.ts';
import { observeQueueWait } from './queue-wait.ts';
import { samplerProcessor } from './sampler.ts';
import { sealProcessor } from './seal.ts';

export interface WorkerSet {
  readonly workers: ReadonlyMap<WorkerQueue, Worker>;
  /** Stops taking jobs, lets active ones finish within `graceMs`, hands back those still running, then closes. */
  close(graceMs?: number): Promise<void>;
}

export function parseQueues(list: string): WorkerQueue[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return WORKER_QUEUES.filter((queue) => names.includes(queue));
}

export function startWorkers(sluice: Sluice, queues: readonly WorkerQueue[]): WorkerSet {
  const { config } = sluice;
  const deadLetters = new DeadLetterQueue(config);
  const active = new ActiveJobs();
  const base = {
    lockDuration: config.workers.lockDurationMs,
    stalledInterval: config.workers.stalledIntervalMs,
    maxStalledCount: config.workers.maxStalledCount,
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        type === BACKOFF_TYPE ? backoffDelay(attemptsMade, config.flush) : 0,
    },
  };
  const { workers: sizes } = config;
  const worker =
    <Data>(queue: WorkerQueue, run: (job: Job<Data>) => Promise<unknown>, concurrency: number) =>
    () =>
      new Worker<Data>(
        queue,
        (job, token) => {
          observeQueueWait(job);
          return active.run(job, token, () => run(job));
        },
        { ...base, ...queueOptions(config, queue), concurrency },
      );
  const start: Record<WorkerQueue, () => Worker> = {
    [QUEUE.seal]: worker(QUEUE.seal, sealProcessor(sluice), sizes.sealConcurrency),
    [QUEUE.flush]: worker(QUEUE.flush, flushProcessor(sluice, deadLetters), sizes.flushConcurrency),
    [QUEUE.merge]: worker(QUEUE.merge, mergeProcessor(sluice), sizes.mergeConcurrency),
    [QUEUE.sampler]: () => {
      const sampler = samplerProcessor(sluice);
      const running = worker(QUEUE.sampler, sampler.run, 1)();
      running.on('closed', () => void sampler.close());
      return running;
    },
  };
  const workers = new Map<WorkerQueue, Worker>();
  for (const queue of queues) {
    const running = start[queue]();
    running.on('error', (err) => sluice.log.error({ err, queue }, 'worker error'));
    workers.set(queue, running);
  }
  const flushFailed = flushFailureHandler(sluice, deadLetters);
  workers.get(QUEUE.flush)?.on('failed', (job, err) => {
    flushFailed(job, err).catch((failure: unknown) =>
      sluice.log.error({ err: failure }, 'flush fail-stop failed'),
    );
  });
  const schedule = queues.includes(QUEUE.sampler) ? keepSamplerScheduled(sluice) : null;
  return {
    workers,
    async close(graceMs = config.workers.shutdownGraceSeconds * 1000) {
      const closing = Promise.all([...workers.values()].map((w) => w.close()));
      const forced = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
      if ((await Promise.race([closing, forced])) === 'timeout') await active.handBack(sluice.log);
      await schedule?.close();
      await deadLetters.close();
    },
  };
}

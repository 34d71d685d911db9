/**
 * Runs the BullMQ workers of the named queues in this process. Each queue is its own
 * Worker, so a process can run any subset and each subset scales on its own.
 */
import { type Job, Worker } from 'bullmq';
import type { Sluice } from '../shared/sluice.ts';
import { DeadLetterQueue } from './dead-letter.ts';
import { flushProcessor } from './flush.ts';
import { QUEUE, queueConnection, type ShardJobData, WORKER_QUEUES, type WorkerQueue } from './queues.ts';
import { BACKOFF_TYPE, backoffDelay } from './retry-policy.ts';
import { sealProcessor } from './seal.ts';

export interface WorkerSet {
  readonly workers: ReadonlyMap<WorkerQueue, Worker>;
  /** Stops taking jobs, lets active ones finish within `graceMs`, then closes. */
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
  const base = {
    connection: queueConnection(config),
    prefix: config.redisPrefix,
    lockDuration: config.workers.lockDurationMs,
    stalledInterval: config.workers.stalledIntervalMs,
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        type === BACKOFF_TYPE ? backoffDelay(attemptsMade, config.flush) : 0,
    },
  };
  const processors: Record<
    WorkerQueue,
    { run: (job: Job<ShardJobData>) => Promise<unknown>; concurrency: number }
  > = {
    [QUEUE.seal]: { run: sealProcessor(sluice), concurrency: config.workers.sealConcurrency },
    [QUEUE.flush]: { run: flushProcessor(sluice, deadLetters), concurrency: config.workers.flushConcurrency },
  };
  const workers = new Map<WorkerQueue, Worker>();
  for (const queue of queues) {
    const { run, concurrency } = processors[queue];
    const worker = new Worker<ShardJobData>(queue, run, { ...base, concurrency });
    worker.on('error', (err) => sluice.log.error({ err, queue }, 'worker error'));
    workers.set(queue, worker);
  }
  return {
    workers,
    async close(graceMs = config.workers.shutdownGraceSeconds * 1000) {
      const closing = Promise.all([...workers.values()].map((w) => w.close()));
      const forced = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
      if ((await Promise.race([closing, forced])) === 'timeout') {
        // Past the grace period the active jobs are handed back: their locks lapse and another worker takes them.
        await Promise.all([...workers.values()].map((w) => w.close(true)));
      }
      await deadLetters.close();
    },
  };
}

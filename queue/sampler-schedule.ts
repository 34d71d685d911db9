/**
 * Keeps the sampler's Job Scheduler in Redis for as long as this process runs the sampler
 * queue. A scheduler lives only in Redis: after Redis restarts empty, or fails over to a
 * replica that never saw it, it is gone with its next tick, and without ticks nothing
 * re-creates lost flushes, merges or GC. So it is asserted when this process starts, on
 * every (re)connect and every sampler interval; a missing one is logged and counted.
 * This is the only place that upserts it, one call at a time: concurrent upserts are where
 * BullMQ's schedulers duplicate or miss runs.
 */
import type { Queue } from 'bullmq';
import { samplerSchedulerLost } from '../shared/metrics.ts';
import type { Sluice } from '../shared/sluice.ts';
import { openQueue } from './open-queue.ts';
import { QUEUE } from './queues.ts';

export interface SamplerSchedule {
  /** Resolves once the scheduler is known to exist (or the attempt failed and was logged). */
  assert(): Promise<void>;
  close(): Promise<void>;
}

export function keepSamplerScheduled(sluice: Sluice): SamplerSchedule {
  const { config, log } = sluice;
  const intervalMs = config.scheduler.samplerIntervalSeconds * 1000;
  const queue = openQueue(config, QUEUE.sampler);
  queue.on('error', (err) => log.warn({ err }, 'sampler scheduler connection error'));
  let created = false;
  let closed = false;
  let inFlight: Promise<void> | null = null;

  const ensure = async () => {
    if (await queue.getJobScheduler(SAMPLER_SCHEDULER_ID)) return;
    if (created) {
      samplerSchedulerLost.inc();
      log.warn(
        { scheduler: SAMPLER_SCHEDULER_ID },
        'sampler Job Scheduler was lost from Redis; re-creating it',
      );
    }
    await scheduleSampler(queue, config.scheduler.samplerIntervalSeconds);
    created = true;
  };
  const assert = (): Promise<void> => {
    if (closed) return Promise.resolve();
    inFlight ??= ensure()
      .catch((err: unknown) => log.error({ err }, 'could not assert the sampler Job Scheduler'))
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };

  const timer = setInterval(() => void assert(), intervalMs);
  timer.unref();
  void queue.getBackend().client.then(
    (client) => client.on('ready', () => void assert()),
    (err: unknown) => log.error({ err }, 'sampler scheduler connection failed'),
  );
  void assert();

  return {
    assert,
    async close() {
      closed = true;
      clearInterval(timer);
      await inFlight;
      await queue.close();
    },
  };
}

export const SAMPLER_SCHEDULER_ID = 'sampler-tick';

async function scheduleSampler(queue: Queue, intervalSeconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    SAMPLER_SCHEDULER_ID,
    { every: intervalSeconds * 1000 },
    { name: 'tick', opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
  );
}

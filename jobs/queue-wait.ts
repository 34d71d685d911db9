/**
 * How long a job waited in its queue: from its add to a worker starting it, less the delay
 * it asked for. Only a first attempt says anything: a retry's wait is its backoff.
 */
import type { Job } from 'bullmq';
import { queueWait } from '../shared/metrics.ts';

export function queueWaitMs(job: Job): number | null {
  if (job.attemptsMade > 0 || job.processedOn === undefined) return null;
  return job.processedOn - job.timestamp - (job.opts.delay ?? 0);
}

export function observeQueueWait(job: Job): void {
  const waited = queueWaitMs(job);
  // The add and the start are stamped by different hosts' clocks: a skew must not read as a negative wait.
  if (waited !== null) queueWait.observe({ queue: job.queueName }, Math.max(0, waited) / 1000);
}

/**
 * The dead-letter queue: where a job goes when no retry can make it succeed. BullMQ has
 * none built in; this queue has no worker, so its jobs stay waiting until an operator
 * lists, inspects or retries them. A dead letter reuses the failed job's queue and id, so
 * recording the same failure twice (a redelivered job) keeps one entry.
 */
import type { Job } from 'bullmq';
import { Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import type { SluiceError } from '../shared/errors.ts';
import { QUEUE, queueConnection } from './queues.ts';

export interface DeadLetter {
  queue: string;
  target: string;
  jobId: string;
  jobName: string;
  data: unknown;
  error: { code: string; message: string; details: Record<string, unknown> };
  stack: string | null;
  attempts: number;
  enqueuedAt: string;
  lastStartedAt: string | null;
  failedAt: string;
}

export function deadLetterId(queue: string, jobId: string): string {
  return `${queue}-${jobId}`;
}

export class DeadLetterQueue {
  readonly queue: Queue<DeadLetter>;

  constructor(config: Config) {
    this.queue = new Queue<DeadLetter>(QUEUE.deadLetter, {
      connection: queueConnection(config),
      prefix: config.redisPrefix,
    });
  }

  async record(job: Job, target: string, error: SluiceError): Promise<DeadLetter> {
    const letter: DeadLetter = {
      queue: job.queueName,
      target,
      jobId: String(job.id),
      jobName: job.name,
      data: job.data,
      error: error.toJSON(),
      stack: error.stack ?? null,
      attempts: job.attemptsMade + 1,
      enqueuedAt: new Date(job.timestamp).toISOString(),
      lastStartedAt: job.processedOn ? new Date(job.processedOn).toISOString() : null,
      failedAt: new Date().toISOString(),
    };
    await this.queue.add('dead-letter', letter, { jobId: deadLetterId(letter.queue, letter.jobId) });
    return letter;
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

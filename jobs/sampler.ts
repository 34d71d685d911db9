/**
 * The sampler: a BullMQ Job Scheduler fires one tick every `samplerIntervalSeconds`, and
 * the tick runs the domain's sampler (`samplerTick`). The scheduler is upserted only by the process that runs the
 * sampler queue (deploy exactly one), because concurrent upserts from many processes are
 * where BullMQ's schedulers duplicate or miss runs.
 */
import type { Job, Queue } from 'bullmq';
import { emfLines } from '../observability/cloudwatch-emf.ts';
import { openEveryQueue } from '../queue/open-queue.ts';
import { QUEUE, queueJobCounts } from '../queue/queues.ts';
import type { Sluice } from '../shared/sluice.ts';

export interface SamplerProcessor {
  run(job: Job): Promise<{ sampled: number; merges: number; optimizes: number }>;
  close(): Promise<void>;
}

export function samplerProcessor(sluice: Sluice): SamplerProcessor {
  const queues = sluice.config.cloudwatchEmf ? openEveryQueue(sluice.config) : [];
  return {
    async run(job) {
      const report = await sluice.sampler.tick(sluice.log.child({ queue: job.queueName, jobId: job.id }));
      if (queues.length > 0) await publishEmf(sluice, queues);
      return {
        sampled: report.sampled,
        merges: report.merges.length,
        optimizes: report.optimizes.length,
      };
    },
    async close() {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/** Jobs that wait for a worker: BullMQ keeps the ones with a priority apart from the rest. */
const WAITING_STATES = new Set(['waiting', 'prioritized']);

/** The counts the AWS stack scales and alarms on, as the Prometheus gauges count them. */
async function publishEmf(sluice: Sluice, queues: Queue[]): Promise<void> {
  const waiting: Record<string, number> = Object.fromEntries(queues.map((queue) => [queue.name, 0]));
  for (const { queue, state, count } of await queueJobCounts(queues)) {
    if (WAITING_STATES.has(state)) waiting[queue] = (waiting[queue] ?? 0) + count;
  }
  const { [QUEUE.deadLetter]: deadLetters = 0, ...queueWaiting } = waiting;
  const counts = {
    queueWaiting,
    deadLetters,
    poisonedShards: await sluice.shards.poisonedCount(),
  };
  for (const line of emfLines(counts)) process.stdout.write(`${line}\n`);
}

/**
 * The sampler: a BullMQ Job Scheduler fires one tick every `samplerIntervalSeconds`, and
 * the tick runs `samplerTick`. The scheduler is upserted only by the process that runs the
 * sampler queue (deploy exactly one), because concurrent upserts from many processes are
 * where BullMQ's schedulers duplicate or miss runs.
 */
import { type Job, Queue } from 'bullmq';
import type { SamplerDeps } from '../shared/scheduler/sampler.ts';
import { samplerTick } from '../shared/scheduler/sampler.ts';
import type { Sluice } from '../shared/sluice.ts';
import { emfLines } from './cloudwatch-emf.ts';
import { QUEUE, queueJobCounts, queueOptions } from './queues.ts';

export const SAMPLER_SCHEDULER_ID = 'sampler-tick';

export function samplerDeps(sluice: Sluice): SamplerDeps {
  return {
    ...sluice,
    index: sluice.samplerIndex,
    gates: {
      isCoolingDown: (kind, table, now) => sluice.ledger.isCoolingDown(kind, table, now),
      isDrained: (table) => sluice.drains.isDrained(table),
    },
    work: sluice.scheduler,
  };
}

export interface SamplerProcessor {
  run(job: Job): Promise<{ sampled: number; merges: number; compactions: number }>;
  close(): Promise<void>;
}

export function samplerProcessor(sluice: Sluice): SamplerProcessor {
  const deps = samplerDeps(sluice);
  const queues = sluice.config.cloudwatchEmf
    ? Object.values(QUEUE).map((name) => new Queue(name, queueOptions(sluice.config, name)))
    : [];
  return {
    async run(job) {
      const report = await samplerTick({
        ...deps,
        log: sluice.log.child({ queue: job.queueName, jobId: job.id }),
      });
      if (queues.length > 0) await publishEmf(sluice, queues);
      return {
        sampled: report.sampled,
        merges: report.merges.length,
        compactions: report.compactions.length,
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
    poisonedShards: await sluice.shardState.poisonedCount(),
  };
  for (const line of emfLines(counts)) process.stdout.write(`${line}\n`);
}

export async function scheduleSampler(queue: Queue, intervalSeconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    SAMPLER_SCHEDULER_ID,
    { every: intervalSeconds * 1000 },
    { name: 'tick', opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
  );
}

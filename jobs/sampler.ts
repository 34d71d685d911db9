/**
 * The sampler: a BullMQ Job Scheduler fires one tick every `samplerIntervalSeconds`, and
 * the tick runs `samplerTick`. The scheduler is upserted only by the process that runs the
 * sampler queue (deploy exactly one), because concurrent upserts from many processes are
 * where BullMQ's schedulers duplicate or miss runs.
 */
import type { Job, Queue } from 'bullmq';
import type { SamplerDeps } from '../shared/scheduler/sampler.ts';
import { samplerTick } from '../shared/scheduler/sampler.ts';
import type { Sluice } from '../shared/sluice.ts';

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

export function samplerProcessor(sluice: Sluice) {
  const deps = samplerDeps(sluice);
  return async (job: Job) => {
    const report = await samplerTick({
      ...deps,
      log: sluice.log.child({ queue: job.queueName, jobId: job.id }),
    });
    return { sampled: report.sampled, merges: report.merges.length, compactions: report.compactions.length };
  };
}

export async function scheduleSampler(queue: Queue, intervalSeconds: number): Promise<void> {
  await queue.upsertJobScheduler(
    SAMPLER_SCHEDULER_ID,
    { every: intervalSeconds * 1000 },
    { name: 'tick', opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
  );
}

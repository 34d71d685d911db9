/**
 * The BullMQ side of a merge or compaction job: job → `runTableWork` → result, and the
 * error → retry or fail (job-failure.ts). Drain, budgets and the ledger are the domain's
 * (shared/scheduler/table-work.ts); this file only reads the job.
 */
import type { Job } from 'bullmq';
import { toSluiceError } from '../shared/errors.ts';
import type { WorkKind } from '../shared/scheduler/contracts.ts';
import { runTableWork } from '../shared/scheduler/table-work.ts';
import type { BudgetedWork } from '../shared/scheduler/time-budget.ts';
import type { Sluice } from '../shared/sluice.ts';
import { jobOutcome } from './job-failure.ts';
import { queueWaitMs } from './queue-wait.ts';
import type { TableJobData } from './queues.ts';

export function tableWorkProcessor<T>(
  sluice: Sluice,
  kind: WorkKind,
  work: (table: string, options: Parameters<BudgetedWork<T>>[0]) => Promise<T>,
) {
  return async (job: Job<TableJobData>) => {
    const { table, manual } = job.data;
    const log = sluice.log.child({ queue: job.queueName, jobId: job.id, table, manual });
    log.debug({ attempt: job.attemptsMade + 1 }, `${kind} started`);
    try {
      return await runTableWork(sluice, { kind, table, queueWaitMs: queueWaitMs(job), log }, (options) =>
        work(table, options),
      );
    } catch (err) {
      throw jobOutcome(job, toSluiceError(err));
    } finally {
      log.debug(`${kind} ended`);
    }
  };
}

/**
 * The BullMQ side of a merge or compaction job: job → `tableWork.run` → result, and the
 * error → retry or fail (job-failure.ts). Drain, budgets and the ledger are the domain's
 * (shared/scheduler/table-work.ts); this file only reads the job.
 */
import type { Job } from 'bullmq';
import type { TableJobData } from '../queue/queues.ts';
import { toSluiceError } from '../shared/errors.ts';
import type { WorkKind } from '../shared/scheduler/contracts.ts';
import type { BudgetedWork } from '../shared/scheduler/time-budget.ts';
import type { Sluice } from '../shared/sluice.ts';
import type { OnWorkProgress, WorkProgress } from '../shared/work/work-progress.ts';
import { jobOutcome } from './job-failure.ts';
import { queueWaitMs } from './queue-wait.ts';

export function tableWorkProcessor<T>(
  sluice: Sluice,
  kind: WorkKind,
  work: (
    table: string,
    options: Parameters<BudgetedWork<T>>[0] & { onWorkProgress: OnWorkProgress },
  ) => Promise<T>,
) {
  return async (job: Job<TableJobData>) => {
    const { table, manual } = job.data;
    const log = sluice.log.child({ queue: job.queueName, jobId: job.id, table, manual });
    log.debug({ attempt: job.attemptsMade + 1 }, `${kind} started`);
    const started = performance.now();
    let progress: WorkProgress = { rowsDone: 0, rowsTotal: 0, bytesDone: 0, bytesTotal: 0 };
    const onWorkProgress = (next: WorkProgress) => {
      progress = next;
      // Progress is for people watching; a Redis hiccup while reporting it must not fail the work.
      job.updateProgress({ ...next }).catch((err: unknown) => log.debug({ err }, 'progress not reported'));
    };
    try {
      const outcome = await sluice.tableWork.run(
        { kind, table, queueWaitMs: queueWaitMs(job), log },
        (options) => work(table, { ...options, onWorkProgress }),
      );
      if (outcome.status === 'done') {
        const durationMs = Math.round(performance.now() - started);
        log.info({ rows: progress.rowsDone, bytes: progress.bytesDone, durationMs }, `${kind} done`);
      }
      return outcome;
    } catch (err) {
      const error = toSluiceError(err);
      if (error.code === 'TABLE_NOT_FOUND') {
        log.info({ kind }, 'table dropped; nothing to do');
        return { status: 'dropped' as const };
      }
      throw jobOutcome(job, error);
    } finally {
      log.debug(`${kind} ended`);
    }
  };
}

/**
 * The merge-lane job (docs/design.md, "Merge"): one table's merge, then its optimize when
 * due (shared/scheduler/merge-lane.ts). This file only reads the job: progress goes to the
 * job, the error to retry or fail (job-failure.ts).
 */
import type { Job } from 'bullmq';
import type { TableJobData } from '../queue/queues.ts';
import { toSluiceError } from '../shared/errors.ts';
import type { Sluice } from '../shared/sluice.ts';
import type { WorkProgress } from '../shared/work/work-progress.ts';
import { jobOutcome } from './job-failure.ts';
import { queueWaitMs } from './queue-wait.ts';

export function mergeProcessor(sluice: Sluice) {
  return async (job: Job<TableJobData>) => {
    const { table, manual } = job.data;
    const log = sluice.log.child({ queue: job.queueName, jobId: job.id, table, manual });
    log.debug({ attempt: job.attemptsMade + 1 }, 'merge started');
    const started = performance.now();
    let progress: WorkProgress = { rowsDone: 0, rowsTotal: 0, bytesDone: 0, bytesTotal: 0 };
    const onWorkProgress = (next: WorkProgress) => {
      progress = next;
      // Progress is for people watching; a Redis hiccup while reporting it must not fail the work.
      job.updateProgress({ ...next }).catch((err: unknown) => log.debug({ err }, 'progress not reported'));
    };
    try {
      const result = await sluice.tableWork.runLane({
        table,
        queueWaitMs: queueWaitMs(job),
        log,
        onWorkProgress,
      });
      if (result.status === 'done') {
        const durationMs = Math.round(performance.now() - started);
        const { generations, lanceVersion } = result.merged;
        const merged = { rows: progress.rowsDone, bytes: progress.bytesDone, generations, lanceVersion };
        log.info({ ...merged, pending: result.pending, optimize: result.optimize, durationMs }, 'merge done');
      }
      return result;
    } catch (err) {
      const error = toSluiceError(err);
      if (error.code === 'TABLE_NOT_FOUND') {
        log.info('table dropped; nothing to do');
        return { status: 'dropped' as const };
      }
      throw jobOutcome(job, error);
    } finally {
      log.debug('merge ended');
    }
  };
}

/**
 * One run of a table's background work (merge or compaction), as a job runs it: a drained
 * table starts nothing; a queue wait past its budget is reported (I16); the work runs under
 * its time budgets; the outcome goes to the failure ledger under the work's own kind — a
 * merge failure is a merge failure, never a flush failure, and poisons no shard (I14).
 * The error is handed back unchanged, for the job layer to map to retry or fail.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { queueBudgetExceeded } from '../metrics.ts';
import type { WorkKind } from './contracts.ts';
import type { DrainFlags } from './drain.ts';
import type { FailureLedger } from './failure-ledger.ts';
import { type BudgetedWork, mergeTimeBudget, withTimeBudget } from './time-budget.ts';

export interface TableWorkDeps {
  config: Config;
  ledger: FailureLedger;
  drains: DrainFlags;
}

export interface TableWorkRun {
  kind: WorkKind;
  table: string;
  /** Time from enqueue to this start; null when it says nothing (a retry that waited out its backoff). */
  queueWaitMs: number | null;
  log: Logger;
}

export type TableWorkOutcome<T> = { status: 'drained' } | { status: 'done'; result: T };

export async function runTableWork<T>(
  deps: TableWorkDeps,
  run: TableWorkRun,
  work: BudgetedWork<T>,
): Promise<TableWorkOutcome<T>> {
  const { kind, table, queueWaitMs, log } = run;
  const { scheduler } = deps.config;
  if (queueWaitMs !== null && queueWaitMs > scheduler.mergeQueueBudgetSeconds * 1000) {
    log.warn(
      { kind, waitedSeconds: queueWaitMs / 1000, budgetSeconds: scheduler.mergeQueueBudgetSeconds },
      'waited in the queue past its budget',
    );
    queueBudgetExceeded.inc({ kind });
  }
  if (await deps.drains.isDrained(table)) {
    log.info({ kind }, 'table is drained; not starting');
    return { status: 'drained' };
  }
  try {
    const result = await withTimeBudget(mergeTimeBudget(scheduler), `${kind} of table ${table}`, work);
    await deps.ledger.recordSuccess(kind, table);
    return { status: 'done', result };
  } catch (err) {
    await recordFailure(deps.ledger, run, err);
    throw err;
  }
}

/** A ledger that cannot be written (Redis down) must not hide the failure it was recording. */
async function recordFailure(ledger: FailureLedger, { kind, table, log }: TableWorkRun, err: unknown) {
  try {
    const entry = await ledger.recordFailure(kind, table, err);
    log.warn({ kind, err, failures: entry.failures, class: entry.class }, `${kind} failed`);
  } catch (ledgerError) {
    log.error({ kind, err, ledgerError }, `${kind} failed and the failure ledger could not record it`);
  }
}

/**
 * A table's background work: merge and compaction, an operator's merge request and its
 * status, and one run of either as a job runs it (drain, budgets, the failure ledger).
 */

import type { LanceCommit } from '../base/lance-commits.ts';
import { type MergeOptions, type MergeOutcome, runMerge } from '../lsm/merge.ts';
import { runOptimize } from '../lsm/optimize.ts';
import { baseRollbacks, compactDuration, mergeDuration, timed } from '../metrics.ts';
import { manualMergeStatus, requestManualMerge } from '../scheduler/manual-merge.ts';
import { runTableWork, type TableWorkOutcome, type TableWorkRun } from '../scheduler/table-work.ts';
import type { BudgetedWork } from '../scheduler/time-budget.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import type { WorkStatus } from '../work/work-status.ts';

export class TableWork {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  merge(tableName: string, options?: MergeOptions): Promise<MergeOutcome> {
    return timed(mergeDuration, async () => {
      const outcome = await runMerge(this.#parts, await this.#parts.table(tableName), options);
      this.#reportRollbacks(tableName, outcome.rolledBack);
      await this.#parts.samplerIndex.markDirty(
        tableName,
        outcome.merged.map((r) => r.shard),
      );
      return outcome;
    });
  }

  /** The compact job: Lance's optimize of the table's base, recorded like a merge. */
  compact(tableName: string, options?: MergeOptions) {
    const { scheduler } = this.#parts.config;
    return timed(compactDuration, async () =>
      runOptimize(this.#parts, await this.#parts.table(tableName), {
        ...options,
        graceMs: scheduler.gcGraceSeconds * 1000,
        // The job's ceiling bounds how long an optimize runs.
        slackMs: scheduler.mergeCeilingSeconds * 1000,
      }),
    );
  }

  /**
   * The base's rows are Sluice's to write: a commit made beside it that may change rows or
   * the schema is undone at the next merge, and says so (docs/base-table.md, "Commits
   * Sluice did not record").
   */
  #reportRollbacks(table: string, rolledBack: readonly LanceCommit[]): void {
    if (rolledBack.length === 0) return;
    for (const commit of rolledBack) baseRollbacks.inc({ operation: commit.operation });
    this.#parts.log.warn(
      { table, commits: rolledBack.map((c) => ({ version: c.version, operation: c.operation })) },
      'rolled back commits on the base that Sluice did not make and that may change its rows or schema',
    );
  }

  /** "Merge now": never gated by a cooldown, refused with TABLE_DRAINED on a drained table. */
  requestMerge(tableName: string, signal?: AbortSignal): Promise<{ table: string; jobId: string }> {
    return requestManualMerge(this.#parts, tableName, signal);
  }

  mergeStatus(tableName: string, jobId: string): Promise<WorkStatus> {
    return manualMergeStatus(this.#parts, tableName, jobId);
  }

  /** One run of a merge or compaction job (scheduler/table-work.ts). */
  run<T>(run: TableWorkRun, work: BudgetedWork<T>): Promise<TableWorkOutcome<T>> {
    return runTableWork(this.#parts, run, work);
  }
}

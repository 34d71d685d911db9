/**
 * A table's background work, all of it in the table's merge lane: merge and optimize, an
 * operator's request for either and its status, and one lane job as a worker runs it
 * (shared/scheduler/merge-lane.ts).
 */

import type { LanceCommit } from '../base/lance-commits.ts';
import { type MergeOptions, type MergeOutcome, runMerge } from '../lsm/merge.ts';
import { type OptimizeOutcome, runOptimize } from '../lsm/optimize.ts';
import { type RetentionOutcome, runRetention } from '../lsm/retention.ts';
import { baseRollbacks, compactDuration, mergeDuration, timed } from '../metrics.ts';
import { type ManualWork, manualWorkStatus, requestManualWork } from '../scheduler/manual-work.ts';
import { type MergeLaneResult, type MergeLaneRun, runMergeLane } from '../scheduler/merge-lane.ts';
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
      // The definition read anew: a merge asked for by a change of columns made in another
      // process may meet no object of the new schema, and must still give the base its columns.
      const held = await this.#parts.table(tableName);
      await this.#parts.refreshTable(tableName, held.schema.version);
      const outcome = await this.#parts.withFreshSchema(tableName, (table) =>
        runMerge(this.#parts, table, options),
      );
      this.#reportRollbacks(tableName, outcome.rolledBack);
      await this.#parts.samplerIndex.markDirty(
        tableName,
        outcome.merged.map((r) => r.shard),
      );
      return outcome;
    });
  }

  /** Deletes a bounded batch of the rows past the table's retention from its base, recorded like a merge. */
  retain(tableName: string, options?: MergeOptions): Promise<RetentionOutcome> {
    return timed(mergeDuration, async () => {
      const outcome = await runRetention(this.#parts, await this.#parts.table(tableName), options);
      this.#reportRollbacks(tableName, outcome.rolledBack);
      return outcome;
    });
  }

  /** Lance's optimize of the table's base (compaction, index update, cleanup), recorded like a merge. */
  optimize(tableName: string, options?: MergeOptions): Promise<OptimizeOutcome> {
    const { scheduler } = this.#parts.config;
    return timed(compactDuration, async () => {
      const table = await this.#parts.table(tableName);
      const outcome = await runOptimize(this.#parts, table, {
        ...options,
        graceMs: scheduler.gcGraceSeconds * 1000,
        // The job's ceiling bounds how long an optimize runs.
        slackMs: scheduler.mergeCeilingSeconds * 1000,
      });
      // An optimize moves no watermark, so no shard is marked for the sampler: the gauges learn of it here.
      await this.#parts.samplerIndex.saveBase(tableName, await this.#parts.datasets.health(table));
      return outcome;
    });
  }

  /** One job of the table's merge lane, as a worker runs it. */
  runLane(lane: MergeLaneRun): Promise<MergeLaneResult> {
    return runMergeLane(
      {
        ...this.#parts,
        run: (run, work) => this.run(run, work),
        merge: (table, options) => this.merge(table, options),
        retain: (table, options) => this.retain(table, options),
        optimize: (table, options) => this.optimize(table, options),
      },
      lane,
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

  /** "Merge now" or "optimize now": never gated by a cooldown, refused with TABLE_DRAINED on a drained table. */
  request(
    work: ManualWork,
    tableName: string,
    signal?: AbortSignal,
  ): Promise<{ table: string; jobId: string }> {
    return requestManualWork(this.#parts, work, tableName, signal);
  }

  status(work: ManualWork, tableName: string, jobId: string): Promise<WorkStatus> {
    return manualWorkStatus(this.#parts, work, tableName, jobId);
  }

  /** One run of a merge or an optimize under the lane's drain, budgets and ledger (scheduler/table-work.ts). */
  run<T>(run: TableWorkRun, work: BudgetedWork<T>): Promise<TableWorkOutcome<T>> {
    return runTableWork(this.#parts, run, work);
  }
}

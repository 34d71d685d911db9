/**
 * One job of a table's merge lane (docs/design.md, "Merge"): merge what is pending, delete
 * from the base the rows past the table's retention (a bounded batch), ask at once for the
 * next job when due work is left behind (so a table that is behind merges back to back, one
 * job at a time, I12), then optimize when that is due. Merges and optimizes of a table share
 * the lane, so neither ever runs beside the other; each is counted in the failure ledger
 * under its own kind.
 */
import type { BaseHealth } from '../base/base-health.ts';
import { indexesToBuild } from '../base/declared-indexes.ts';
import { toSluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { type Backlog, mergeDue } from '../lsm/backlog.ts';
import type { MergeOutcome } from '../lsm/merge.ts';
import { type OptimizeOutcome, type OptimizeReason, optimizeReason } from '../lsm/optimize.ts';
import type { RetentionOutcome } from '../lsm/retention.ts';
import type { IndexDecl } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';
import type { WorkProgress } from '../work/work-progress.ts';
import type { WorkKind } from './contracts.ts';
import type { TableWorkOutcome, TableWorkRun } from './table-work.ts';
import type { BudgetedWork } from './time-budget.ts';

export interface MergeLaneDeps {
  table(name: string): Promise<TableDef>;
  bases: { read(table: string): Promise<{ mergesSinceOptimize: number }> };
  datasets: { health(table: TableDef): Promise<BaseHealth | null> };
  indexDeclarations: { all(table: TableDef): Promise<IndexDecl[]> };
  ledger: { isCoolingDown(kind: WorkKind, table: string): Promise<boolean> };
  optimizeRequests: {
    waiting(table: string): Promise<number>;
    done(table: string, served: number): Promise<void>;
  };
  scheduler: { requestMerge(table: string, options: { manual: boolean }): Promise<string> };
  run<T>(run: TableWorkRun, work: BudgetedWork<T>): Promise<TableWorkOutcome<T>>;
  merge(
    table: string,
    options: Parameters<BudgetedWork<MergeOutcome>>[0] & LaneProgress,
  ): Promise<MergeOutcome>;
  retain(table: string, options: Parameters<BudgetedWork<RetentionOutcome>>[0]): Promise<RetentionOutcome>;
  optimize(table: string, options: Parameters<BudgetedWork<OptimizeOutcome>>[0]): Promise<OptimizeOutcome>;
}

interface LaneProgress {
  onWorkProgress(progress: WorkProgress): void;
}

export interface MergeLaneRun extends LaneProgress {
  table: string;
  queueWaitMs: number | null;
  log: Logger;
}

/** What a merge-lane job's status shows as its result. */
export type MergeLaneResult =
  | { status: 'drained' }
  | {
      status: 'done';
      merged: { generations: number; rows: number; lanceVersion: number | null };
      /** What is still pending after this merge: committed generations it left for the next. */
      pending: Backlog;
      /** Rows past retention this job deleted from the base; null for a table without retention. */
      retention: LaneRetention | null;
      optimize: LaneOptimize | null;
    };

export interface LaneRetention {
  deleted: number;
  expiredBefore: number | null;
  lanceVersion: number | null;
}

export type LaneOptimize =
  | { reason: OptimizeReason; lanceVersion: number | null; conflicts: number }
  | { reason: OptimizeReason; skipped: 'cooldown' | 'drained' }
  | { reason: OptimizeReason; error: { code: string; message: string } };

export async function runMergeLane(deps: MergeLaneDeps, lane: MergeLaneRun): Promise<MergeLaneResult> {
  const { table, log } = lane;
  const merging = await deps.run({ kind: 'merge', table, queueWaitMs: lane.queueWaitMs, log }, (options) =>
    deps.merge(table, { ...options, onWorkProgress: lane.onWorkProgress }),
  );
  if (merging.status === 'drained') return { status: 'drained' };
  const outcome = merging.result;
  const def = await deps.table(table);
  const retention = def.retention ? await retainAfter(deps, lane) : null;
  if (mergeDue(def, outcome.left, Date.now()) || retention?.more) {
    await deps.scheduler.requestMerge(table, { manual: false });
  }
  const generations = outcome.merged.reduce((sum, r) => sum + r.to - r.from + 1, 0);
  return {
    status: 'done',
    merged: { generations, rows: outcome.rows, lanceVersion: outcome.lanceVersion },
    pending: outcome.left,
    retention: retention && {
      deleted: retention.deleted,
      expiredBefore: retention.expiredBefore,
      lanceVersion: retention.lanceVersion,
    },
    optimize: await optimizeAfter(deps, lane, def, outcome),
  };
}

/** Counted in the ledger as a merge: it is the merge lane's own commit on the base. */
async function retainAfter(deps: MergeLaneDeps, lane: MergeLaneRun): Promise<RetentionOutcome | null> {
  const run = { kind: 'merge' as const, table: lane.table, queueWaitMs: null, log: lane.log };
  const retaining = await deps.run(run, (options) => deps.retain(lane.table, options));
  return retaining.status === 'drained' ? null : retaining.result;
}

/**
 * An operator's optimize that fails fails the job, so its status says so; one the lane
 * chose for itself is left to the ledger and the next job, and never fails the merge
 * that came before it.
 */
async function optimizeAfter(
  deps: MergeLaneDeps,
  lane: MergeLaneRun,
  def: TableDef,
  merged: MergeOutcome,
): Promise<LaneOptimize | null> {
  const requested = await deps.optimizeRequests.waiting(def.name);
  const health = await deps.datasets.health(def);
  const reason = optimizeReason(def, {
    requested: requested > 0,
    mergesSinceOptimize: (await deps.bases.read(def.name)).mergesSinceOptimize,
    caughtUp: merged.rows > 0 && merged.left.generations === 0,
    health,
    indexesToBuild: health ? indexesToBuild(await deps.indexDeclarations.all(def), health).length : 0,
  });
  if (reason === null) return null;
  if (requested === 0 && (await deps.ledger.isCoolingDown('compact', def.name))) {
    return { reason, skipped: 'cooldown' };
  }
  lane.log.debug({ reason }, 'optimize started');
  try {
    const run = { kind: 'compact' as const, table: def.name, queueWaitMs: null, log: lane.log };
    const optimizing = await deps.run(run, (options) => deps.optimize(def.name, options));
    if (optimizing.status === 'drained') return { reason, skipped: 'drained' };
    await deps.optimizeRequests.done(def.name, requested);
    lane.log.info({ reason, ...optimizing.result }, 'optimize done');
    return { reason, ...optimizing.result };
  } catch (err) {
    if (requested > 0) throw err;
    const { code, message } = toSluiceError(err);
    return { reason, error: { code, message } };
  }
}

/**
 * The optimize job: Lance's own compaction, index update and version cleanup on a
 * table's base, recorded like a merge (the manifest names the optimized version only if
 * it still named the version the optimize started from). Cleanup keeps every version a
 * read may still use: a point lookup opens the version recorded when it began, and a scan
 * cursor the one recorded when its scan began, refused once older than the GC grace
 * period. So the oldest version to keep is the one recorded by the newest base manifest
 * stored a grace period ago.
 */
import type { BaseDatasets } from '../base/base-datasets.ts';
import { type BaseHealth, measureBase, unindexedRows } from '../base/base-health.ts';
import { buildIndexes, indexesToBuild } from '../base/declared-indexes.ts';
import { prepareBase } from '../base/merge-commit.ts';
import { optimizeDataset } from '../base/optimize-dataset.ts';
import { isSluiceError } from '../errors.ts';
import type { IndexDeclarations } from '../table/index-declarations.ts';
import type { TableDef } from '../table/table-def.ts';
import type { BaseManifestStore } from './base-manifest.ts';
import { commitOptimize } from './base-transitions.ts';
import type { MergeOptions } from './merge.ts';

export interface OptimizeDeps {
  bases: BaseManifestStore;
  datasets: BaseDatasets;
  indexDeclarations: Pick<IndexDeclarations, 'all'>;
}

export interface OptimizeOutcome {
  /** The Lance version recorded by this optimize, or null when it recorded none. */
  lanceVersion: number | null;
  /** Tries whose commit a merge's commit preempted (each tried again, up to a bound). */
  conflicts: number;
}

/**
 * A merge that commits while Lance rewrites the fragments it touched preempts the
 * optimize's commit. That is Sluice's own work, not a failure: the optimize is tried
 * again on the new version, and after this many tries it records nothing and waits for
 * its next turn, without counting against the table's cooldown.
 */
const OPTIMIZE_TRIES = 3;

export function optimizeDue(mergesSinceOptimize: number, table: TableDef): boolean {
  return mergesSinceOptimize >= table.settings.optimizeAfterMerges;
}

/** Why a merge-lane job optimizes after its merge. */
export type OptimizeReason =
  | 'requested'
  | 'indexes'
  | 'merges'
  | 'small-fragments'
  | 'unindexed-rows'
  | 'caught-up';

export interface LaneState {
  /** An operator asked for an optimize. */
  requested: boolean;
  mergesSinceOptimize: number;
  /** This job merged rows and left nothing pending behind them. */
  caughtUp: boolean;
  /** The base now; null while it has none. */
  health: BaseHealth | null;
  /** Declared indexes the base lacks and has rows enough for. */
  indexesToBuild: number;
}

/**
 * The base stays compact and indexed by itself (docs/base-table.md, "Optimize"): a job that
 * catches up leaves every row indexed; one that is still behind optimizes when the rows no
 * index covers, the small fragments or the merges since the last optimize reach their bound.
 */
export function optimizeReason(table: TableDef, lane: LaneState): OptimizeReason | null {
  if (lane.health === null) return null;
  if (lane.requested) return 'requested';
  if (lane.indexesToBuild > 0) return 'indexes';
  const { optimizeAfterUnindexedRows, optimizeAfterSmallFragments } = table.settings;
  const unindexed = unindexedRows(lane.health);
  if (optimizeDue(lane.mergesSinceOptimize, table)) return 'merges';
  if (lane.health.smallFragments >= optimizeAfterSmallFragments) return 'small-fragments';
  if (unindexed >= optimizeAfterUnindexedRows) return 'unindexed-rows';
  if (lane.caughtUp && unindexed > 0) return 'caught-up';
  return null;
}

type OptimizeOptions = MergeOptions & { graceMs: number; slackMs: number; now?: number };

export async function runOptimize(
  deps: OptimizeDeps,
  table: TableDef,
  options: OptimizeOptions,
): Promise<OptimizeOutcome> {
  for (let conflicts = 0; ; conflicts++) {
    try {
      return { lanceVersion: await optimizeOnce(deps, table, options), conflicts };
    } catch (err) {
      if (!isSluiceError(err, 'STORE_CONFLICT')) throw err;
      if (conflicts + 1 >= OPTIMIZE_TRIES) return { lanceVersion: null, conflicts: conflicts + 1 };
    }
  }
}

/** The version this optimize recorded, or null when it recorded none. */
async function optimizeOnce(
  deps: OptimizeDeps,
  table: TableDef,
  options: OptimizeOptions,
): Promise<number | null> {
  const base = await deps.bases.read(table.name, options.signal);
  if (base.lanceVersion === null) return null;
  const keepFrom = await oldestReadable(deps, table.name, options.graceMs, options.now ?? Date.now());
  const prepared = await prepareBase(deps.datasets, table, base.lanceVersion);
  options.onProgress?.('read');
  await options.onStep?.('prepared');
  const declared = await deps.indexDeclarations.all(table, options.signal);
  await buildIndexes(prepared.handle, table, indexesToBuild(declared, await measureBase(prepared.handle)));
  // Null: every recorded version is younger than the grace period, so all of them are kept.
  const lanceVersion = await optimizeDataset(prepared, keepFrom ?? 1, options.slackMs);
  options.onProgress?.('write');
  const landed = await deps.datasets.commits(table, prepared.on, lanceVersion, options.signal);
  if (landed.some((c) => c.effect !== 'layout')) {
    // A zombie's commit landed among the optimize's own, which then built on it: nothing of
    // it may be recorded, and the latest version goes back to the recorded content.
    await prepareBase(deps.datasets, table, (await deps.bases.read(table.name, options.signal)).lanceVersion);
    return null;
  }
  try {
    const { changed } = await deps.bases.update(
      table.name,
      (current) => commitOptimize(current, base.lanceVersion!, lanceVersion),
      options.signal,
    );
    options.onProgress?.('commit');
    return changed ? lanceVersion : null;
  } catch (err) {
    // A merge recorded meanwhile; the next optimize starts from its version.
    if (isSluiceError(err, 'FENCED')) return null;
    throw err;
  }
}

/** The Lance version of the newest base manifest stored at least `graceMs` ago (null: none that old). */
async function oldestReadable(deps: OptimizeDeps, table: string, graceMs: number, now: number) {
  const stored = await deps.bases.listStored(table);
  // Store times may be whole seconds, hence the extra second.
  const settled = stored.findLast((v) => v.storedAt <= now - graceMs - 1000);
  if (!settled) {
    const oldest = stored[0] ? await deps.bases.readVersion(table, stored[0].version) : null;
    return oldest?.lanceVersion ?? null;
  }
  return (await deps.bases.readVersion(table, settled.version))?.lanceVersion ?? null;
}

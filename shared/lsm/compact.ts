/**
 * Compaction of the base table: merges adjacent base runs into one, so reads fan out over
 * a bounded number of runs and dead rows do not pile up. Size tiers keep the cost
 * logarithmic per row: `compactAfterRuns` adjacent runs of similar size become one; past
 * `maxBaseRuns` runs, or `compactMaxDeadRatio` tombstones, all runs become one. A window
 * that reaches the oldest run drops tombstones: nothing older is left for them to hide.
 */
import { type Table, tableFromIPC } from 'apache-arrow';
import { keyCodecFor } from '../arrow/key-codec.ts';
import type { TableSettings } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { walSchema } from '../wal/wal-entry.ts';
import type { BaseManifest, BaseManifestStore, BaseRun } from './base-manifest.ts';
import { commitCompaction } from './base-transitions.ts';
import { type MergeOptions, writeRun } from './merge.ts';
import { buildRunFile } from './run-file.ts';

export interface CompactDeps {
  store: ObjectStore;
  bases: BaseManifestStore;
}

export interface CompactionPlan {
  /** Adjacent runs, newest first. */
  window: BaseRun[];
  dropDeletes: boolean;
  reason: 'tier' | 'run-count' | 'dead-rows';
}

/** Runs within this size ratio of each other form a tier. */
const TIER_RATIO = 4;

export function planCompaction(base: BaseManifest, settings: TableSettings): CompactionPlan | null {
  const runs = base.runs;
  if (runs.length < 2) return null;
  const rows = runs.reduce((sum, r) => sum + r.rows, 0);
  const tombstones = runs.reduce((sum, r) => sum + r.tombstones, 0);
  if (runs.length > settings.maxBaseRuns) return { window: runs, dropDeletes: true, reason: 'run-count' };
  if (rows > 0 && tombstones / rows > settings.compactMaxDeadRatio) {
    return { window: runs, dropDeletes: true, reason: 'dead-rows' };
  }
  const window = firstTier(runs, settings.compactAfterRuns);
  if (!window) return null;
  return { window, dropDeletes: window.at(-1) === runs.at(-1), reason: 'tier' };
}

/** The newest window of `width` adjacent runs whose sizes are within TIER_RATIO of each other. */
function firstTier(runs: BaseRun[], width: number): BaseRun[] | null {
  for (let start = 0; start + width <= runs.length; start++) {
    const window = runs.slice(start, start + width);
    const sizes = window.map((r) => Math.max(1, r.bytes));
    if (Math.max(...sizes) <= TIER_RATIO * Math.min(...sizes)) return window;
  }
  return null;
}

const MAX_PLANS = 4;

export async function runCompaction(
  deps: CompactDeps,
  table: TableDef,
  options: MergeOptions = {},
): Promise<{ plan: CompactionPlan | null; run: BaseRun | null }> {
  for (let attempt = 0; attempt < MAX_PLANS; attempt++) {
    const base = await deps.bases.read(table.name, options.signal);
    const plan = planCompaction(base, table.settings);
    if (!plan) return { plan: null, run: null };
    const inputs = await readRuns(deps.store, plan.window, options);
    const built = buildRunFile(keyCodecFor(table.schema), walSchema(table.schema), inputs.reverse(), {
      dropDeletes: plan.dropDeletes,
    });
    const run = await writeRun(deps.store, table.name, built, options);
    const replaced = plan.window.map((r) => r.id);
    try {
      const { changed } = await deps.bases.update(
        table.name,
        (current) => commitCompaction(current, replaced, run),
        options.signal,
      );
      options.onProgress?.('commit');
      return changed ? { plan, run } : { plan: null, run: null };
    } catch (err) {
      if (!isSluiceError(err, 'FENCED')) throw err;
    }
  }
  throw new SluiceError('STORE_CONFLICT', 'compaction kept finding the base moved', { table: table.name });
}

/** The runs' rows, newest first like the window. */
async function readRuns(store: ObjectStore, window: BaseRun[], options: MergeOptions): Promise<Table[]> {
  const tables: Table[] = [];
  for (const run of window) {
    const object = await store.get(run.path, { signal: options.signal });
    if (!object)
      throw new SluiceError('DATA_MISSING', `base run ${run.id} is missing`, { run: run.id, path: run.path });
    tables.push(tableFromIPC(object.body));
    options.onProgress?.('read');
  }
  return tables;
}

/**
 * One tick of the sampler/scheduler (docs/design.md, "Sampler and scheduler"): re-sample the shards that
 * changed, record pending generations of every shard (histogram; `warn` at the threshold), enqueue
 * due merges and optimizes (both in the table's merge lane) unless the table is drained or in cooldown, and collect
 * garbage of the tables that changed. Every so often, and whenever Redis has forgotten
 * everything, a full sweep re-creates lost work from the store.
 */
import type { BaseDatasets } from '../base/base-datasets.ts';
import type { Config } from '../config.ts';
import { isSluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { type Backlog, mergeDue, sumBacklogs } from '../lsm/backlog.ts';
import { type BaseManifest, mergedThrough } from '../lsm/base-manifest.ts';
import { collectTable, type GcDeps } from '../lsm/gc.ts';
import { optimizeDue } from '../lsm/optimize.ts';
import { type ReconcileDeps, reconcileTable } from '../lsm/reconcile.ts';
import {
  committedAbove,
  pendingGenerations as pendingOf,
  type ShardManifest,
} from '../lsm/shard-manifest.ts';
import { pendingGenerations, pendingWarnings } from '../metrics.ts';
import type { TableCatalog } from '../table/catalog.ts';
import type { SchemaMarks } from '../table/schema-marks.ts';
import type { TableDef } from '../table/table-def.ts';
import type { TableDrops } from '../table/table-drops.ts';
import type { WorkKind } from './contracts.ts';
import { type LostSealDeps, recoverLostSeals } from './lost-seals.ts';
import { type SampledShard, type SamplerIndex, sampledBacklog } from './sampler-index.ts';

export interface SchedulerGates {
  isCoolingDown(kind: WorkKind, table: string, now?: number): Promise<boolean>;
  isDrained(table: string): Promise<boolean>;
}

export interface TableWork {
  /** A job in the table's merge lane: it merges what is pending, then optimizes when that is due. */
  requestMerge(table: string, options: { manual: boolean }): Promise<string>;
}

export interface SamplerDeps extends GcDeps, ReconcileDeps, LostSealDeps {
  config: Config;
  datasets: Pick<BaseDatasets, 'health'>;
  log: Logger;
  catalog: TableCatalog;
  index: SamplerIndex;
  gates: SchedulerGates;
  work: TableWork;
  drops: TableDrops;
  schemaMarks: SchemaMarks;
  drains: { forget(table: string): Promise<void> };
}

export interface TickReport {
  swept: boolean;
  sampled: number;
  merges: string[];
  /** Merge-lane jobs asked for because an optimize is due, not a merge. */
  optimizes: string[];
  skipped: Array<{ table: string; kind: WorkKind; reason: 'drained' | 'cooldown' }>;
  warnings: number;
  /** Seals asked for because a watched shard went quiet with a seq not yet sealed. */
  lostSeals: number;
}

/** A full sweep this often even when nothing seems lost: the safety net under the dirty marks. */
const SWEEP_EVERY_MS = 5 * 60_000;

export async function samplerTick(deps: SamplerDeps, now = Date.now()): Promise<TickReport> {
  const report: TickReport = {
    swept: false,
    sampled: 0,
    merges: [],
    optimizes: [],
    skipped: [],
    warnings: 0,
    lostSeals: 0,
  };
  if (await deps.index.sweepDue(now, SWEEP_EVERY_MS)) {
    await sweep(deps, now);
    await deps.index.recordSweep(now);
    report.swept = true;
  }
  report.lostSeals = await recoverLostSeals(deps, now);
  const changed: TableDef[] = [];
  for (const [name, shards] of groupByTable(await deps.index.takeDirty())) {
    const table = await deps.catalog.get(name).catch((err: unknown) => {
      if (isSluiceError(err, 'TABLE_NOT_FOUND')) return null;
      throw err;
    });
    if (!table) continue;
    const base = await deps.bases.read(name);
    const states = await Promise.all(
      shards.map(async (s) => sample(base, await deps.manifests.read(name, s))),
    );
    await deps.index.save(states);
    await measureBase(deps, table);
    report.sampled += states.length;
    await scheduleOptimize(deps, table, base, report);
    changed.push(table);
  }
  const all = await deps.index.all();
  report.warnings = observePending(deps, all);
  await scheduleMerges(deps, all, now, report);
  // Last: a collection that has a backlog to delete may take long, and a worker that dies
  // meanwhile loses the tick; the merges it asked for are queued by then.
  for (const table of changed) {
    await collectTable(deps, table, {
      now,
      graceMs: deps.config.scheduler.gcGraceSeconds * 1000,
    });
  }
  return report;
}

/**
 * Reconciles every shard of every table and marks them all for sampling; tells Redis again of
 * every drop and of every table's schema version (a mark lost with Redis, or behind a Redis
 * restored from before a change), and purges the dropped tables that are due.
 */
async function sweep(deps: SamplerDeps, now: number): Promise<void> {
  for (const table of await deps.catalog.listDropped()) {
    await deps.drops.reassert(table);
    const graceMs = deps.config.scheduler.gcGraceSeconds * 1000;
    if (await deps.drops.purgeIfDue(table.name, table.shards, now, graceMs)) {
      await deps.drains.forget(table.name);
      await deps.index.saveBase(table.name, null);
      deps.log.info({ table: table.name }, 'dropped table purged');
    }
  }
  for (const table of await deps.catalog.listAll()) {
    await deps.schemaMarks.raise(table.name, table.schema.version);
    const shards = Array.from({ length: table.shards }, (_, shard) => shard);
    await reconcileTable(deps, table);
    await deps.index.markDirty(table.name, shards);
  }
}

/** The base's fragments and index coverage, for the lag gauges; a base Lance cannot open now is measured next time. */
async function measureBase(deps: SamplerDeps, table: TableDef): Promise<void> {
  try {
    await deps.index.saveBase(table.name, await deps.datasets.health(table));
  } catch (err) {
    deps.log.warn({ table: table.name, err }, 'base not measured');
  }
}

export function sample(base: BaseManifest, manifest: ShardManifest): SampledShard {
  const watermark = mergedThrough(base, manifest.shard);
  const unmerged = committedAbove(manifest, watermark);
  const oldest = unmerged[0]?.committedAt;
  return {
    table: manifest.table,
    shard: manifest.shard,
    pending: pendingOf(manifest, watermark),
    unmerged: unmerged.length,
    unmergedRows: unmerged.reduce((sum, g) => sum + g.rows, 0),
    oldestUnmergedAt: oldest ? Date.parse(oldest) : null,
    poisoned: manifest.poison !== null,
  };
}

function observePending(deps: SamplerDeps, states: SampledShard[]): number {
  const warnAt = deps.config.scheduler.pendingWarnGenerations;
  let warnings = 0;
  for (const state of states) {
    pendingGenerations.observe(state.pending);
    if (warnAt > 0 && state.pending >= warnAt) {
      deps.log.warn(
        { table: state.table, shard: state.shard, pending: state.pending, warnAt },
        'pending generations high',
      );
      pendingWarnings.inc();
      warnings++;
    }
  }
  return warnings;
}

/**
 * What the sampled shards of one table hold unmerged. A merge leaves poisoned shards as
 * they are (I7), so their generations cannot make one due.
 */
export function mergeableBacklog(sampled: SampledShard[]): Backlog {
  return sumBacklogs(sampled.filter((s) => !s.poisoned).map(sampledBacklog));
}

async function scheduleMerges(deps: SamplerDeps, states: SampledShard[], now: number, report: TickReport) {
  for (const [name, shards] of groupStates(states)) {
    if (shards.every((s) => s.unmerged === 0)) continue;
    const table = await deps.catalog.get(name);
    if (!mergeDue(table, mergeableBacklog(shards), now)) continue;
    const gate = await gateOf(deps, 'merge', name, now);
    if (gate) report.skipped.push({ table: name, kind: 'merge', reason: gate });
    else report.merges.push(await deps.work.requestMerge(name, { manual: false }));
  }
}

/**
 * A merge-lane job optimizes after its merge whenever that is due; this asks for one when
 * no merge would (the optimize after the last merges failed, say), gated as an optimize.
 */
async function scheduleOptimize(deps: SamplerDeps, table: TableDef, base: BaseManifest, report: TickReport) {
  if (!optimizeDue(base.mergesSinceOptimize, table)) return;
  const gate = await gateOf(deps, 'compact', table.name, Date.now());
  if (gate) report.skipped.push({ table: table.name, kind: 'compact', reason: gate });
  else report.optimizes.push(await deps.work.requestMerge(table.name, { manual: false }));
}

async function gateOf(deps: SamplerDeps, kind: WorkKind, table: string, now: number) {
  if (await deps.gates.isDrained(table)) return 'drained' as const;
  if (await deps.gates.isCoolingDown(kind, table, now)) return 'cooldown' as const;
  return null;
}

function groupByTable(marks: Array<{ table: string; shard: number }>): Map<string, number[]> {
  const grouped = new Map<string, number[]>();
  for (const { table, shard } of marks) grouped.set(table, [...(grouped.get(table) ?? []), shard]);
  return grouped;
}

function groupStates(states: SampledShard[]): Map<string, SampledShard[]> {
  const grouped = new Map<string, SampledShard[]>();
  for (const state of states) grouped.set(state.table, [...(grouped.get(state.table) ?? []), state]);
  return grouped;
}

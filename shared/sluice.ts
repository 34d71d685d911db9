/**
 * The domain API of one process: everything the HTTP functions and the job processors
 * call. It wires the store, Redis state, manifests, WAL writer and read cache together;
 * every rule lives in the module it delegates to.
 */
import type { RecordBatch, Table } from 'apache-arrow';
import { BaseDatasets } from './base/base-datasets.ts';
import type { Config } from './config.ts';
import type { ErrorCode } from './errors.ts';
import { SluiceError } from './errors.ts';
import type { Logger } from './log.ts';
import { BaseManifestStore } from './lsm/base-manifest.ts';
import { type FlushOptions, flushShard } from './lsm/flush.ts';
import { type MergeOptions, type MergeOutcome, runMerge } from './lsm/merge.ts';
import { runOptimize } from './lsm/optimize.ts';
import { type PoisonOutcome, poison, reopen } from './lsm/poison.ts';
import { reconcileShard, type ShardReconcile } from './lsm/reconcile.ts';
import { type SealOutcome, sealShard } from './lsm/seal.ts';
import { type ShardManifest, ShardManifestStore } from './lsm/shard-manifest.ts';
import { hintsFor } from './lsm/versioned-document.ts';
import {
  compactDuration,
  flushDuration,
  mergeDuration,
  outcomeOf,
  sealDuration,
  timed,
  writeDuration,
  writeRows,
} from './metrics.ts';
import { parseKeyRange } from './read/key-range.ts';
import { ObjectCache } from './read/object-cache.ts';
import { type Lookup, lookupRow, lookupRows } from './read/point-lookup.ts';
import { countRows, type RowCount } from './read/row-count.ts';
import { type ScanPage, scanRows } from './read/scan.ts';
import { type ShardStats, shardStats } from './read/shard-stats.ts';
import type { RedisClient } from './redis/connection.ts';
import { SealWatch } from './redis/seal-watch.ts';
import { ShardState } from './redis/shard-state.ts';
import { SchedulerCounters } from './scheduler/counters.ts';
import { DrainFlags } from './scheduler/drain.ts';
import { FailureLedger } from './scheduler/failure-ledger.ts';
import { SamplerIndex } from './scheduler/sampler-index.ts';
import type { ObjectStore } from './store/object-store.ts';
import { TableCatalog } from './table/catalog.ts';
import type { TableDef } from './table/table-def.ts';
import { type DroppedTable, notFound as dropNotFound, TableDrops } from './table/table-drops.ts';
import { type AppendResult, appendRows, deleteKeys } from './wal/append.ts';
import { WalWriter } from './wal/wal-writer.ts';
import type { WorkScheduler } from './work/work-scheduler.ts';

export interface SluiceDeps {
  config: Config;
  store: ObjectStore;
  redis: RedisClient;
  scheduler: WorkScheduler;
  log: Logger;
}

export class Sluice {
  readonly config: Config;
  readonly store: ObjectStore;
  readonly log: Logger;
  readonly scheduler: WorkScheduler;
  readonly manifests: ShardManifestStore;
  readonly bases: BaseManifestStore;
  readonly datasets: BaseDatasets;
  readonly pendingRejectGenerations: number;
  readonly shardState: ShardState;
  readonly catalog: TableCatalog;
  readonly wal: WalWriter;
  readonly cache: ObjectCache;
  readonly samplerIndex: SamplerIndex;
  readonly sealWatch: SealWatch;
  readonly schedulerCounters = new SchedulerCounters();
  readonly ledger: FailureLedger;
  readonly drains: DrainFlags;
  readonly drops: TableDrops;
  private readonly tables = new Map<string, Promise<TableDef>>();

  constructor(deps: SluiceDeps) {
    this.config = deps.config;
    this.store = deps.store;
    this.log = deps.log;
    this.scheduler = deps.scheduler;
    const hints = hintsFor(deps.config.scheduler.gcGraceSeconds * 1000);
    this.manifests = new ShardManifestStore(deps.store, hints);
    this.bases = new BaseManifestStore(deps.store, hints);
    this.datasets = new BaseDatasets(deps.config);
    this.pendingRejectGenerations = deps.config.scheduler.pendingRejectGenerations;
    this.shardState = new ShardState(deps.redis, deps.config.redisPrefix);
    this.catalog = new TableCatalog(deps.store, deps.config.tableDefaults);
    this.cache = new ObjectCache(deps.store, deps.config.limits.readCacheBytes);
    this.samplerIndex = new SamplerIndex(deps.redis, deps.config.redisPrefix);
    this.sealWatch = new SealWatch(deps.redis, deps.config.redisPrefix);
    const { redis, log } = deps;
    const prefix = deps.config.redisPrefix;
    this.drops = new TableDrops({ redis, prefix, store: deps.store });
    this.wal = new WalWriter({
      ...deps,
      manifests: this.manifests,
      shardState: this.shardState,
      sealWatch: this.sealWatch,
      drops: this.drops,
    });
    const counters = this.schedulerCounters;
    this.ledger = new FailureLedger({ redis, prefix, settings: deps.config.scheduler, log, counters });
    this.drains = new DrainFlags({ redis, prefix, store: deps.store });
  }

  /**
   * Table definitions never change once created, so each is read from the store once per
   * process; whether the table was dropped since is asked every time (one Redis read).
   */
  async table(name: string): Promise<TableDef> {
    const def = await this.cachedTable(name);
    if (await this.drops.isDropped(def.name)) {
      this.tables.delete(name);
      throw dropNotFound(def.name);
    }
    return def;
  }

  /**
   * The table a write goes to, without asking whether it was dropped: the WAL allocation
   * refuses a dropped table itself (TableDrops), so a write makes no Redis call for it.
   */
  async tableForWrite(name: string): Promise<TableDef> {
    return this.cachedTable(name);
  }

  /** Drops a table: reads and writes answer TABLE_NOT_FOUND at once; the sampler purges its data after the GC grace. */
  async dropTable(name: string): Promise<DroppedTable> {
    const def = await this.table(name);
    const dropped = await this.drops.drop(def, this.config.scheduler.gcGraceSeconds * 1000);
    this.tables.delete(name);
    return dropped;
  }

  private cachedTable(name: string): Promise<TableDef> {
    const known = this.tables.get(name);
    if (known) return known;
    const loading = this.catalog.get(name);
    this.tables.set(name, loading);
    loading.catch(() => this.tables.delete(name));
    return loading;
  }

  append(tableName: string, rows: Table | RecordBatch): Promise<AppendResult> {
    return measureWrite('upsert', rows.numRows, async () =>
      appendRows(this.wal, await this.writeTarget(tableName, rows.numRows), rows),
    );
  }

  delete(tableName: string, keys: readonly unknown[]): Promise<AppendResult> {
    return measureWrite('delete', keys.length, async () =>
      deleteKeys(this.wal, await this.writeTarget(tableName, keys.length), keys),
    );
  }

  /** A write of no rows reaches no allocation, so it asks about the drop here. */
  private writeTarget(name: string, rows: number): Promise<TableDef> {
    return rows === 0 ? this.table(name) : this.tableForWrite(name);
  }

  async lookup(
    tableName: string,
    key: unknown,
    options: { columns?: readonly string[] | null; signal?: AbortSignal } = {},
  ): Promise<Table | null> {
    return lookupRow(this, await this.table(tableName), key, options);
  }

  async lookupMany(
    tableName: string,
    keys: readonly unknown[],
    options: { columns?: readonly string[] | null; signal?: AbortSignal } = {},
  ): Promise<Lookup> {
    return lookupRows(this, await this.table(tableName), keys, options);
  }

  async scan(
    tableName: string,
    options: {
      limit: number;
      after?: string | null;
      from?: unknown;
      to?: unknown;
      columns?: readonly string[] | null;
    },
    signal?: AbortSignal,
  ): Promise<ScanPage> {
    const cursorTtlMs = this.config.scheduler.gcGraceSeconds * 1000;
    const table = await this.table(tableName);
    const { from, to, ...page } = options;
    const range = parseKeyRange(table, { from, to });
    return scanRows(this, table, { ...page, range, cursorTtlMs }, signal);
  }

  async countRows(tableName: string, signal?: AbortSignal): Promise<RowCount> {
    return countRows(this, await this.table(tableName), signal);
  }

  async shardStats(tableName: string, shard: number): Promise<ShardStats> {
    const table = await this.table(tableName);
    return shardStats(this, table, this.checkShard(table, shard));
  }

  seal(tableName: string, shard: number, signal?: AbortSignal): Promise<SealOutcome> {
    return timed(sealDuration, async () => {
      const table = await this.table(tableName);
      const outcome = await sealShard(this, table, this.checkShard(table, shard), signal);
      if (outcome.sealed.length > 0) await this.samplerIndex.markDirty(table.name, [shard]);
      return outcome;
    });
  }

  flush(tableName: string, shard: number, options?: FlushOptions): Promise<number[]> {
    return timed(flushDuration, async () => {
      const table = await this.table(tableName);
      const committed = await flushShard(this, table, this.checkShard(table, shard), options);
      if (committed.length > 0) await this.samplerIndex.markDirty(table.name, [shard]);
      return committed;
    });
  }

  poison(
    tableName: string,
    shard: number,
    reason: { code: ErrorCode; generation: number | null; cause: string; jobId?: string },
  ): Promise<PoisonOutcome> {
    return poison(this, { table: tableName, shard }, reason);
  }

  merge(tableName: string, options?: MergeOptions): Promise<MergeOutcome> {
    return timed(mergeDuration, async () => {
      const outcome = await runMerge(this, await this.table(tableName), options);
      await this.samplerIndex.markDirty(
        tableName,
        outcome.merged.map((r) => r.shard),
      );
      return outcome;
    });
  }

  /** The compact job: Lance's optimize of the table's base, recorded like a merge. */
  compact(tableName: string, options?: MergeOptions) {
    return timed(compactDuration, async () =>
      runOptimize(this, await this.table(tableName), {
        ...options,
        graceMs: this.config.scheduler.gcGraceSeconds * 1000,
        // The job's ceiling bounds how long an optimize runs.
        slackMs: this.config.scheduler.mergeCeilingSeconds * 1000,
      }),
    );
  }

  async reopen(tableName: string, shard: number): Promise<ShardManifest> {
    const table = await this.table(tableName);
    return reopen(this, { table: table.name, shard: this.checkShard(table, shard) });
  }

  /** Re-creates lost work for every shard of `tableName`, or of every table. */
  async reconcile(tableName?: string): Promise<ShardReconcile[]> {
    const tables = tableName ? [await this.table(tableName)] : await this.catalog.listAll();
    const outcomes: ShardReconcile[] = [];
    for (const table of tables) {
      for (let shard = 0; shard < table.shards; shard++)
        outcomes.push(await reconcileShard(this, table.name, shard));
    }
    return outcomes;
  }

  private checkShard(table: TableDef, shard: number): number {
    if (!Number.isInteger(shard) || shard < 0 || shard >= table.shards) {
      throw new SluiceError('SHARD_NOT_FOUND', `table ${table.name} has no shard ${shard}`, {
        table: table.name,
        shard,
        shards: table.shards,
      });
    }
    return shard;
  }
}

/** Latency and rows of one upsert or delete request, by its outcome. */
async function measureWrite(
  op: 'upsert' | 'delete',
  rows: number,
  write: () => Promise<AppendResult>,
): Promise<AppendResult> {
  const end = writeDuration.startTimer({ op });
  let outcome = 'ok';
  try {
    return await write();
  } catch (err) {
    outcome = outcomeOf(err);
    throw err;
  } finally {
    end({ outcome });
    writeRows.inc({ op, outcome }, rows);
  }
}

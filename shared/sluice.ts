/**
 * The domain of one process, built in this one place (docs/design.md, "Layers and rooms"):
 * the parts (sluice-parts.ts) wired together once, and on them the services that the HTTP
 * functions and the job processors call. Every rule lives in the module a service
 * delegates to; the services keep the parts private.
 */
import { BaseDatasets } from './base/base-datasets.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { BaseManifestStore } from './lsm/base-manifest.ts';
import { ShardManifestStore } from './lsm/shard-manifest.ts';
import { ObjectCache } from './read/object-cache.ts';
import { SnapshotOverlays } from './read/snapshot-overlay.ts';
import type { RedisClient } from './redis/connection.ts';
import { InflightMarks } from './redis/inflight-marks.ts';
import { LaneAllocation } from './redis/lane-allocation.ts';
import { LanePoisonCache } from './redis/lane-poison-cache.ts';
import { LaneSealCounters } from './redis/lane-seal-counters.ts';
import { PoisonCache } from './redis/poison-cache.ts';
import { SealCounters } from './redis/seal-counters.ts';
import { SealWatch } from './redis/seal-watch.ts';
import { SeqAllocation } from './redis/seq-allocation.ts';
import { DrainFlags } from './scheduler/drain.ts';
import { FailureLedger } from './scheduler/failure-ledger.ts';
import { OptimizeRequests } from './scheduler/optimize-requests.ts';
import { SamplerIndex } from './scheduler/sampler-index.ts';
import { FilterPasses } from './search/filter-passes.ts';
import { PendingTables } from './search/pending-tables.ts';
import { FilterCheck } from './search/search-filter.ts';
import { Reads } from './services/reads.ts';
import { Sampler } from './services/sampler.ts';
import { SchedulerViews } from './services/scheduler-views.ts';
import { Shards } from './services/shards.ts';
import { TableWork } from './services/table-work.ts';
import { Tables } from './services/tables.ts';
import { Writes } from './services/writes.ts';
import type { SluiceParts } from './sluice-parts.ts';
import type { ObjectStore } from './store/object-store.ts';
import { hintsFor } from './store/versioned-document.ts';
import { TableCatalog } from './table/catalog.ts';
import { IndexDeclarations } from './table/index-declarations.ts';
import { SchemaDocuments } from './table/schema-documents.ts';
import { SchemaMarks } from './table/schema-marks.ts';
import { TableDrops } from './table/table-drops.ts';
import { TableLookup } from './table/table-lookup.ts';
import { EntryHeads } from './wal/entry-heads.ts';
import { WalWriter } from './wal/wal-writer.ts';
import type { WorkScheduler } from './work/work-scheduler.ts';

export interface SluiceDeps {
  config: Config;
  store: ObjectStore;
  redis: RedisClient;
  scheduler: WorkScheduler;
  log: Logger;
  /** Milliseconds since the epoch: retention's cutoff is taken from it. Date.now when absent. */
  clock?: () => number;
}

/** What functions/ and jobs/ call: the process's settings and logger, and the domain services. */
export interface Sluice {
  readonly config: Config;
  readonly log: Logger;
  readonly tables: Tables;
  readonly writes: Writes;
  readonly reads: Reads;
  readonly shards: Shards;
  readonly tableWork: TableWork;
  readonly sampler: Sampler;
  readonly scheduler: SchedulerViews;
}

/** The services, and the parts they were built on for the composition that owns them. */
export interface OpenedSluice {
  readonly sluice: Sluice;
  readonly parts: SluiceParts;
}

export function openSluice(deps: SluiceDeps): OpenedSluice {
  const { config, store, redis, log } = deps;
  const prefix = config.redisPrefix;
  const hints = hintsFor(config.scheduler.gcGraceSeconds * 1000);
  const manifests = new ShardManifestStore(store, hints);
  const poisonCache = new PoisonCache(redis, prefix);
  const seqAllocation = new SeqAllocation(redis, prefix, poisonCache);
  const lanePoisonCache = new LanePoisonCache(redis, prefix);
  const laneAllocation = new LaneAllocation(redis, prefix, poisonCache);
  const laneSealCounters = new LaneSealCounters(redis, prefix);
  const sealWatch = new SealWatch(redis, prefix);
  const catalog = new TableCatalog(store, config.tableDefaults, new SchemaDocuments(store, hints));
  const drops = new TableDrops({ redis, prefix, store });
  const schemaMarks = new SchemaMarks(redis, prefix);
  const lookup = new TableLookup(catalog, drops, schemaMarks);
  const parts: SluiceParts = {
    config,
    store,
    log,
    clock: deps.clock ?? Date.now,
    scheduler: deps.scheduler,
    manifests,
    bases: new BaseManifestStore(store, hints),
    datasets: new BaseDatasets(config, store),
    pendingRejectGenerations: config.scheduler.pendingRejectGenerations,
    seqAllocation,
    inflightMarks: new InflightMarks(redis, prefix),
    sealCounters: new SealCounters(redis, prefix),
    poisonCache,
    laneAllocation,
    laneSealCounters,
    lanePoisonCache,
    catalog,
    wal: new WalWriter({
      ...deps,
      manifests,
      seqAllocation,
      laneAllocation,
      laneSealCounters,
      sealWatch,
      drops,
    }),
    cache: new ObjectCache(store, config.limits.readCacheBytes),
    entryHeads: new EntryHeads(),
    overlays: new SnapshotOverlays(),
    samplerIndex: new SamplerIndex(redis, prefix),
    sealWatch,
    ledger: new FailureLedger({ redis, prefix, settings: config.scheduler, log }),
    drains: new DrainFlags({ redis, prefix, store }),
    optimizeRequests: new OptimizeRequests(redis, prefix),
    drops,
    schemaMarks,
    indexDeclarations: new IndexDeclarations(store),
    pendingTables: new PendingTables(config.limits.searchCacheBytes),
    filterCheck: new FilterCheck(),
    filterPasses: new FilterPasses(),
    table: (name) => lookup.get(name),
    tableForWrite: (name) => lookup.forWrite(name),
    whileLive: (name, read) => lookup.whileLive(name, read),
    withFreshSchema: (name, work) => lookup.withFreshSchema(name, work),
    refreshTable: (name, seen) => lookup.refresh(name, seen),
    forgetTable: (name) => lookup.forget(name),
  };
  const sluice: Sluice = {
    config,
    log,
    tables: new Tables(parts, lookup),
    writes: new Writes(parts),
    reads: new Reads(parts),
    shards: new Shards(parts),
    tableWork: new TableWork(parts),
    sampler: new Sampler(parts),
    scheduler: new SchedulerViews(parts),
  };
  return { sluice, parts };
}

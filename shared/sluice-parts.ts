/**
 * The lower-level parts of one process's domain, built once by `openSluice` (sluice.ts):
 * the store, the Redis state, the manifests, the WAL writer, the read cache and the
 * scheduler's stores. Only the domain services (shared/services/) and the composition
 * that built them hold these; functions/ and jobs/ reach the domain through the services.
 */
import type { BaseDatasets } from './base/base-datasets.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { BaseManifestStore } from './lsm/base-manifest.ts';
import type { ShardManifestStore } from './lsm/shard-manifest.ts';
import type { ObjectCache } from './read/object-cache.ts';
import type { SnapshotOverlays } from './read/snapshot-overlay.ts';
import type { InflightMarks } from './redis/inflight-marks.ts';
import type { LaneAllocation } from './redis/lane-allocation.ts';
import type { LanePoisonCache } from './redis/lane-poison-cache.ts';
import type { LaneSealCounters } from './redis/lane-seal-counters.ts';
import type { PoisonCache } from './redis/poison-cache.ts';
import type { SealCounters } from './redis/seal-counters.ts';
import type { SealWatch } from './redis/seal-watch.ts';
import type { SeqAllocation } from './redis/seq-allocation.ts';
import type { DrainFlags } from './scheduler/drain.ts';
import type { FailureLedger } from './scheduler/failure-ledger.ts';
import type { OptimizeRequests } from './scheduler/optimize-requests.ts';
import type { SamplerIndex } from './scheduler/sampler-index.ts';
import type { FilterPasses } from './search/filter-passes.ts';
import type { PendingTables } from './search/pending-tables.ts';
import type { FilterCheck } from './search/search-filter.ts';
import type { ObjectStore } from './store/object-store.ts';
import type { TableCatalog } from './table/catalog.ts';
import type { IndexDeclarations } from './table/index-declarations.ts';
import type { SchemaMarks } from './table/schema-marks.ts';
import type { TableDef } from './table/table-def.ts';
import type { TableDrops } from './table/table-drops.ts';
import type { EntryHeads } from './wal/entry-heads.ts';
import type { WalWriter } from './wal/wal-writer.ts';
import type { WorkScheduler } from './work/work-scheduler.ts';

export interface SluiceParts {
  readonly config: Config;
  readonly store: ObjectStore;
  readonly log: Logger;
  /** Milliseconds since the epoch, for retention's cutoff: a test injects its own. */
  readonly clock: () => number;
  readonly scheduler: WorkScheduler;
  readonly manifests: ShardManifestStore;
  readonly bases: BaseManifestStore;
  readonly datasets: BaseDatasets;
  readonly pendingRejectGenerations: number;
  readonly seqAllocation: SeqAllocation;
  readonly inflightMarks: InflightMarks;
  readonly sealCounters: SealCounters;
  readonly poisonCache: PoisonCache;
  /** A table WAL lane's Redis state (docs/table-wal-lane.md). */
  readonly laneAllocation: LaneAllocation;
  readonly laneSealCounters: LaneSealCounters;
  readonly lanePoisonCache: LanePoisonCache;
  readonly catalog: TableCatalog;
  readonly wal: WalWriter;
  readonly cache: ObjectCache;
  /** Heads of table-lane WAL entries this process's flushes read (docs/table-wal-lane.md §12). */
  readonly entryHeads: EntryHeads;
  readonly overlays: SnapshotOverlays;
  readonly samplerIndex: SamplerIndex;
  readonly sealWatch: SealWatch;
  readonly ledger: FailureLedger;
  readonly drains: DrainFlags;
  readonly optimizeRequests: OptimizeRequests;
  readonly drops: TableDrops;
  readonly schemaMarks: SchemaMarks;
  readonly indexDeclarations: IndexDeclarations;
  readonly pendingTables: PendingTables;
  readonly filterCheck: FilterCheck;
  readonly filterPasses: FilterPasses;
  /** The live definition of a table: TABLE_NOT_FOUND once it is dropped (table-lookup.ts). */
  table(name: string): Promise<TableDef>;
  /** The definition a write goes to; a dropped table is refused by the write's WAL allocation. */
  tableForWrite(name: string): Promise<TableDef>;
  /** `read` of a live table, the drop asked beside it (table-lookup.ts). */
  whileLive<T>(name: string, read: (table: TableDef) => Promise<T>): Promise<T>;
  /** `work` on a live table, run again on its definition read anew if it met a newer schema (table-lookup.ts). */
  withFreshSchema<T>(name: string, work: (table: TableDef) => Promise<T>): Promise<T>;
  /** The definition read again from the store, unless one newer than schema version `seen` is held (table-lookup.ts). */
  refreshTable(name: string, seen: number): Promise<TableDef>;
  /** Drops the process's copy of a definition whose table a write found dropped. */
  forgetTable(name: string): void;
}

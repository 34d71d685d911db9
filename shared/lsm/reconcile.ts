/**
 * Rebuilds work that Redis lost (after a restart it comes back empty, or a job was removed):
 * re-syncs the WAL lane's Redis state with the store, asks for a seal when WAL entries wait
 * past a shard's last seal, and for a flush when sealed generations wait. Asking is
 * idempotent, so a sweep over healthy shards queues nothing new. A shard's own lane is
 * synced per shard; a table lane (docs/table-wal-lane.md, §4) once per table, and each shard
 * seals from its one listing.
 */
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LanePoisonCache } from '../redis/lane-poison-cache.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { listWalAfter } from '../wal/frontier.ts';
import { syncLane } from '../wal/lane-sync.ts';
import { syncShard } from '../wal/shard-sync.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { persistCachedPoison } from './poison.ts';
import type { ShardManifest, ShardManifestStore } from './shard-manifest.ts';

export interface ReconcileDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  seqAllocation: SeqAllocation;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
  poisonCache: PoisonCache;
  lanePoisonCache: LanePoisonCache;
  scheduler: WorkScheduler;
}

export interface ShardReconcile {
  table: string;
  shard: number;
  sealRequested: boolean;
  flushRequested: boolean;
}

/** Every shard of `table`, lowest first. */
export async function reconcileTable(deps: ReconcileDeps, table: TableDef): Promise<ShardReconcile[]> {
  const outcomes: ShardReconcile[] = [];
  if (table.walLane !== 'table') {
    for (let shard = 0; shard < table.shards; shard++)
      outcomes.push(await reconcileShard(deps, table.name, shard));
    return outcomes;
  }
  // The sync's listing starts at or below every sealed range read after it: sealed ranges only grow.
  const listed = await syncLane(deps, table);
  const manifests: ShardManifest[] = [];
  for (let shard = 0; shard < table.shards; shard++)
    manifests.push(await deps.manifests.read(table.name, shard));
  for (const manifest of manifests) {
    // Any object past the sealed range, another shard's entry too: its seal advances past it.
    const unsealed = async () => listed.some((object) => object.seq > manifest.sealedThrough);
    outcomes.push(await reconcileManifest(deps, manifest, unsealed));
  }
  return outcomes;
}

/** A shard of its own lane. */
export async function reconcileShard(
  deps: ReconcileDeps,
  table: string,
  shard: number,
): Promise<ShardReconcile> {
  await syncShard(deps, table, shard);
  const manifest = await deps.manifests.read(table, shard);
  const unsealed = async () =>
    (await listWalAfter(deps.store, table, shard, manifest.sealedThrough)).length > 0;
  return reconcileManifest(deps, manifest, unsealed);
}

async function reconcileManifest(
  deps: ReconcileDeps,
  manifest: ShardManifest,
  unsealed: () => Promise<boolean>,
): Promise<ShardReconcile> {
  const { table, shard } = manifest;
  const outcome = { table, shard, sealRequested: false, flushRequested: false };
  if (await persistCachedPoison(deps, manifest)) return outcome;
  if (await unsealed()) {
    await deps.scheduler.requestSeal(table, shard, { delayMs: 0 });
    outcome.sealRequested = true;
  }
  if (manifest.sealed.length > 0) {
    await deps.scheduler.requestFlush(table, shard);
    outcome.flushRequested = true;
  }
  return outcome;
}

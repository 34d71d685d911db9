/**
 * Rebuilds work that Redis lost (after a restart it comes back empty, or a job was removed):
 * re-syncs the shard's Redis state with the store, asks for a seal when WAL entries wait past
 * the last seal, and for a flush when sealed generations wait. Asking is idempotent, so a
 * sweep over healthy shards queues nothing new.
 */
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { listWalAfter } from '../wal/frontier.ts';
import { syncShard } from '../wal/shard-sync.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { persistCachedPoison } from './poison.ts';
import type { ShardManifestStore } from './shard-manifest.ts';

export interface ReconcileDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  seqAllocation: SeqAllocation;
  poisonCache: PoisonCache;
  scheduler: WorkScheduler;
}

export interface ShardReconcile {
  table: string;
  shard: number;
  sealRequested: boolean;
  flushRequested: boolean;
}

export async function reconcileShard(
  deps: ReconcileDeps,
  table: string,
  shard: number,
): Promise<ShardReconcile> {
  await syncShard(deps, table, shard);
  const manifest = await deps.manifests.read(table, shard);
  const outcome = { table, shard, sealRequested: false, flushRequested: false };
  if (await persistCachedPoison(deps, manifest)) return outcome;
  const unsealed = await listWalAfter(deps.store, table, shard, manifest.sealedThrough);
  if (unsealed.length > 0) {
    await deps.scheduler.requestSeal(table, shard, { delayMs: 0 });
    outcome.sealRequested = true;
  }
  if (manifest.sealed.length > 0) {
    await deps.scheduler.requestFlush(table, shard);
    outcome.flushRequested = true;
  }
  return outcome;
}

/**
 * Brings a shard's Redis state in line with what the object store knows: on first use,
 * after Redis lost its state or came back from an old snapshot, and on every reconcile
 * sweep, so counters a crash left wrong between a commit and its bookkeeping heal. The seq
 * counter is raised above every seq the store has seen — sealed ranges, the cursor and
 * every WAL entry present — so a new seq never collides with an acked entry (a collision
 * with an unacked one is caught by put-if-absent).
 */
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { listWalAfter } from './frontier.ts';
import type { ManifestReader } from './manifest-reader.ts';

export interface ShardSyncDeps {
  store: ObjectStore;
  manifests: ManifestReader;
  seqAllocation: SeqAllocation;
}

export async function syncShard(deps: ShardSyncDeps, table: string, shard: number): Promise<void> {
  const manifest = await deps.manifests.read(table, shard);
  const unsealed = await listWalAfter(deps.store, table, shard, manifest.sealedThrough);
  await deps.seqAllocation.sync(table, shard, {
    seqFloor: Math.max(manifest.sealedThrough, manifest.walCursor, unsealed.at(-1)?.seq ?? 0),
    sealedCount: manifest.sealed.length,
    manifestVersion: manifest.version,
    unsealedBytes: unsealed.reduce((sum, entry) => sum + entry.bytes, 0),
    poison: manifest.poison,
  });
}

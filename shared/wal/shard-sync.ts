/**
 * Seeds Redis with what the object store knows about a shard: on first use, and after
 * Redis lost its state. The seq counter starts above every seq the store has seen — sealed
 * ranges, the cursor and every WAL entry present — so a new seq never collides with an
 * acked entry (a collision with an unacked one is caught by put-if-absent).
 */
import type { ShardManifestStore } from '../lsm/shard-manifest.ts';
import type { ShardState } from '../redis/shard-state.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { listWalAfter } from './frontier.ts';

export interface ShardInitDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  shardState: ShardState;
}

export async function initializeShard(deps: ShardInitDeps, table: string, shard: number): Promise<void> {
  const manifest = await deps.manifests.read(table, shard);
  const unsealed = await listWalAfter(deps.store, table, shard, manifest.sealedThrough);
  const seqFloor = Math.max(manifest.sealedThrough, manifest.walCursor, unsealed.at(-1)?.seq ?? 0);
  await deps.shardState.initialize(table, shard, {
    seqFloor,
    sealedCount: manifest.sealed.length,
    unsealedBytes: unsealed.reduce((sum, entry) => sum + entry.bytes, 0),
    poison: manifest.poison,
  });
}

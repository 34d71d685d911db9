/**
 * I7: a poisoned shard fails fast everywhere. The manifest is the durable record; the
 * Redis copy is checked too because it is written first, while the store may still be
 * refusing the manifest commit that makes the poison durable.
 */
import type { ShardState } from '../redis/shard-state.ts';
import { poisonedError } from './manifest-transitions.ts';
import type { ShardManifest } from './shard-manifest.ts';

export async function assertShardOpen(shardState: ShardState, manifest: ShardManifest): Promise<void> {
  const poison = manifest.poison ?? (await shardState.cachedPoison(manifest.table, manifest.shard));
  if (poison) throw poisonedError(manifest.table, manifest.shard, poison);
}

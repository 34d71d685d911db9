/**
 * I7: a poisoned shard fails fast everywhere. The manifest is the durable record; the
 * Redis copy is checked too because it is written first, while the store may still be
 * refusing the manifest commit that makes the poison durable.
 */
import type { ShardState } from '../redis/shard-state.ts';
import { poisonedError } from './manifest-transitions.ts';
import type { PoisonRecord, ShardManifest } from './shard-manifest.ts';

/** The shard's poison, durable or only cached so far, or null when it is open. */
export async function shardPoison(
  shardState: ShardState,
  manifest: ShardManifest,
): Promise<PoisonRecord | null> {
  return manifest.poison ?? (await shardState.cachedPoison(manifest.table, manifest.shard));
}

export async function assertShardOpen(shardState: ShardState, manifest: ShardManifest): Promise<void> {
  const poison = await shardPoison(shardState, manifest);
  if (poison) throw poisonedError(manifest.table, manifest.shard, poison);
}

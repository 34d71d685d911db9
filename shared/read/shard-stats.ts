/**
 * Shard stats (docs/design.md, "Response shapes"): readable
 * whatever state the shard is in, poisoned included.
 */

import { mergedThrough as watermarkOf } from '../lsm/base-manifest.ts';
import {
  type CommittedGeneration,
  pendingGenerations,
  type SealedGeneration,
  type ShardManifest,
} from '../lsm/shard-manifest.ts';
import { type PoisonRecord, shardPoison } from '../shard-poison.ts';
import type { TableDef } from '../table/table-def.ts';
import type { ReadDeps } from './read-snapshot.ts';
import { type Unsealed, unsealedOf } from './unsealed.ts';

export interface ShardStats {
  table: string;
  shard: number;
  frontier: number;
  walCursor: number;
  sealedThrough: number;
  allocatedThrough: number | null;
  currentGeneration: number;
  sealed: SealedGeneration[];
  committed: CommittedGeneration[];
  mergedThrough: number;
  pendingGenerations: number;
  unsealedEntries: number;
  unsealedBytes: number;
  manifestVersion: number;
  poison: PoisonRecord | null;
}

export async function shardStats(
  deps: ReadDeps,
  table: TableDef,
  shard: number,
  signal?: AbortSignal,
): Promise<ShardStats> {
  const mergedThrough = watermarkOf(await deps.bases.read(table.name, signal), shard);
  const manifest = await deps.manifests.read(table.name, shard, signal);
  const [unsealed] = await unsealedOf(deps, table, [manifest], signal);
  return statsOf(deps, table, manifest, mergedThrough, unsealed!);
}

/** The stats of a shard from its manifest, read after the base's `mergedThrough`, and its WAL past it. */
export async function statsOf(
  deps: ReadDeps,
  table: TableDef,
  manifest: ShardManifest,
  mergedThrough: number,
  unsealed: Unsealed,
): Promise<ShardStats> {
  const { shard } = manifest;
  return {
    table: table.name,
    shard,
    frontier: unsealed.frontier,
    walCursor: manifest.walCursor,
    sealedThrough: manifest.sealedThrough,
    allocatedThrough:
      table.walLane === 'table'
        ? await deps.laneAllocation.allocatedThrough(table.name)
        : await deps.seqAllocation.allocatedThrough(table.name, shard),
    currentGeneration: manifest.currentGeneration,
    sealed: manifest.sealed,
    committed: manifest.committed,
    mergedThrough,
    pendingGenerations: pendingGenerations(manifest, mergedThrough),
    unsealedEntries: unsealed.entries,
    unsealedBytes: unsealed.bytes,
    manifestVersion: manifest.version,
    poison: await shardPoison(deps.poisonCache, manifest),
  };
}

/**
 * Shard stats (docs/design.md, "Response shapes"): readable
 * whatever state the shard is in, poisoned included.
 */

import { mergedThrough as watermarkOf } from '../lsm/base-manifest.ts';
import {
  type CommittedGeneration,
  pendingGenerations,
  type SealedGeneration,
} from '../lsm/shard-manifest.ts';
import { type PoisonRecord, shardPoison } from '../shard-poison.ts';
import type { TableDef } from '../table/table-def.ts';
import { listWalAfter, missingSeqs } from '../wal/frontier.ts';
import type { ReadDeps } from './read-snapshot.ts';

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
  const unsealed = await listWalAfter(deps.store, table.name, shard, manifest.sealedThrough, signal);
  const firstMissing = missingSeqs(manifest.sealedThrough, unsealed)[0];
  const frontier =
    firstMissing !== undefined ? firstMissing - 1 : (unsealed.at(-1)?.seq ?? manifest.sealedThrough);
  return {
    table: table.name,
    shard,
    frontier,
    walCursor: manifest.walCursor,
    sealedThrough: manifest.sealedThrough,
    allocatedThrough: await deps.seqAllocation.allocatedThrough(table.name, shard),
    currentGeneration: manifest.currentGeneration,
    sealed: manifest.sealed,
    committed: manifest.committed,
    mergedThrough,
    pendingGenerations: pendingGenerations(manifest, mergedThrough),
    unsealedEntries: unsealed.length,
    unsealedBytes: unsealed.reduce((sum, e) => sum + e.bytes, 0),
    manifestVersion: manifest.version,
    poison: await shardPoison(deps.poisonCache, manifest),
  };
}

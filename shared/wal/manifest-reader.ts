/**
 * What the WAL reads of a shard manifest: where sealing stopped, the cursor, how many
 * generations wait, the version and the poison. The manifests' owner
 * (`ShardManifestStore` in lsm/shard-manifest.ts) satisfies it, and the WAL, which the
 * LSM builds on, imports nothing of the LSM (docs/design.md, "Layers and rooms").
 */
import type { PoisonRecord } from '../shard-poison.ts';

export interface ShardManifestView {
  version: number;
  walCursor: number;
  sealedThrough: number;
  sealed: readonly unknown[];
  poison: PoisonRecord | null;
}

export interface ManifestReader {
  read(table: string, shard: number, signal?: AbortSignal): Promise<ShardManifestView>;
}

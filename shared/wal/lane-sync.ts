/**
 * Brings a table lane's Redis state in line with what the store knows (docs/table-wal-lane.md,
 * §4 "Lost seals, sync, reconcile"), as `syncShard` does for a shard's own lane: the counter
 * raised above every seq the store has seen — every shard's sealed range and cursor, every
 * object in the lane — and each shard's counters seeded from its manifest. A shard's unsealed
 * bytes are counted as every lane object past its sealed range, its own sections or not: an
 * upper bound that errs toward backpressure, which its next seal corrects.
 */
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { listLaneAfter, tableLane } from './frontier.ts';
import type { ManifestReader } from './manifest-reader.ts';

export interface LaneSyncDeps {
  store: ObjectStore;
  manifests: ManifestReader;
  laneAllocation: LaneAllocation;
}

export async function syncLane(deps: LaneSyncDeps, table: TableDef): Promise<void> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const manifests = await Promise.all(shards.map((shard) => deps.manifests.read(table.name, shard)));
  const lowest = Math.min(...manifests.map((m) => m.sealedThrough));
  const listed = await listLaneAfter(deps.store, tableLane(table.name), lowest);
  const seen = [...manifests.flatMap((m) => [m.sealedThrough, m.walCursor]), listed.at(-1)?.seq ?? 0];
  await deps.laneAllocation.sync(table.name, {
    seqFloor: Math.max(...seen),
    shards: manifests.map((manifest, shard) => ({
      shard,
      sealedCount: manifest.sealed.length,
      manifestVersion: manifest.version,
      unsealedBytes: listed
        .filter((object) => object.seq > manifest.sealedThrough)
        .reduce((sum, object) => sum + object.bytes, 0),
      sealedThrough: manifest.sealedThrough,
      poison: manifest.poison,
    })),
  });
}

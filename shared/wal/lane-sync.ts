/**
 * Brings a table lane's Redis state in line with what the store knows (docs/table-wal-lane.md,
 * §4 "Lost seals, sync, reconcile"), as `syncShard` does for a shard's own lane: the counter
 * raised above every seq the store has seen — every shard's sealed range and cursor, every
 * object in the lane — and each shard's counters seeded from its manifest. A shard's unsealed
 * bytes are those of its own sections past its sealed range, from Redis or the entries'
 * footers, as the completions would have counted them: counting other shards' entries too
 * would hold writes back (I18) until the next sync, since a seal subtracts only its own.
 */
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { listLaneAfter, tableLane, type WalObject } from './frontier.ts';
import { laneEntrySections } from './lane-entry-sections.ts';
import type { ManifestReader } from './manifest-reader.ts';

export interface LaneSyncDeps {
  store: ObjectStore;
  manifests: ManifestReader;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
}

/** Returns the lane's objects it listed, past the lowest sealed range of the table's shards. */
export async function syncLane(deps: LaneSyncDeps, table: TableDef): Promise<WalObject[]> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const manifests = await Promise.all(shards.map((shard) => deps.manifests.read(table.name, shard)));
  const lowest = Math.min(...manifests.map((m) => m.sealedThrough));
  const listed = await listLaneAfter(deps.store, tableLane(table.name), lowest);
  const sections = await laneEntrySections(deps, table.name, listed);
  const seen = [...manifests.flatMap((m) => [m.sealedThrough, m.walCursor]), listed.at(-1)?.seq ?? 0];
  await deps.laneAllocation.sync(table.name, {
    seqFloor: Math.max(...seen),
    shards: manifests.map((manifest, shard) => ({
      shard,
      sealedCount: manifest.sealed.length,
      manifestVersion: manifest.version,
      unsealedBytes: sections
        .filter(({ seq }) => seq > manifest.sealedThrough)
        .flatMap(({ entry }) => entry?.sections.filter((s) => s.shard === shard) ?? [])
        .reduce((sum, s) => sum + s.end - s.start, 0),
      sealedThrough: manifest.sealedThrough,
      poison: manifest.poison,
    })),
  });
  return listed;
}

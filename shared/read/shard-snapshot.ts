/**
 * What a read of one shard sees (DESIGN.md §3.6): the WAL tail after the cursor, up to the
 * highest seq allocated when the read began, then the committed L0 generations — as
 * sorted runs, newest first. Every write acked before the read began is in one of them
 * (I10): an acked entry is either past the cursor of the manifest read here, or in a
 * generation that manifest lists as committed.
 */
import { keyCodecFor } from '../arrow/key-codec.ts';
import { SluiceError } from '../errors.ts';
import type { ShardManifest, ShardManifestStore } from '../lsm/shard-manifest.ts';
import { assertShardOpen } from '../lsm/shard-open.ts';
import type { ShardState } from '../redis/shard-state.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { listWalAfter } from '../wal/frontier.ts';
import { isHole } from '../wal/wal-entry.ts';
import { derived, type ObjectCache } from './object-cache.ts';
import { fileRun, type SortedRun, walRun } from './sorted-run.ts';

export interface ReadDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  shardState: ShardState;
  cache: ObjectCache;
}

export interface ShardSnapshot {
  manifest: ShardManifest;
  /** Newest first. */
  runs: SortedRun[];
}

export async function shardSnapshot(
  deps: ReadDeps,
  table: TableDef,
  shard: number,
  signal?: AbortSignal,
): Promise<ShardSnapshot> {
  const allocated = await deps.shardState.allocatedThrough(table.name, shard);
  const manifest = await deps.manifests.read(table.name, shard, signal);
  await assertShardOpen(deps.shardState, manifest);
  const tail = (await listWalAfter(deps.store, table.name, shard, manifest.walCursor, signal)).filter(
    (entry) => allocated === null || entry.seq <= allocated,
  );
  const codec = keyCodecFor(table.schema);
  const walRuns = await Promise.all(
    tail.map(async ({ seq }) => {
      const cached = await required(deps.cache, walKey(table.name, shard, seq), signal);
      return isHole(cached.table) ? null : derived(cached, 'run', () => walRun(codec, cached.table));
    }),
  );
  const fileRuns = await Promise.all(
    [...manifest.committed].reverse().map(async (generation) => {
      const cached = await required(deps.cache, generation.path, signal);
      return derived(cached, 'run', () => fileRun(cached.table));
    }),
  );
  const runs = [...walRuns.filter((run): run is SortedRun => run !== null).reverse(), ...fileRuns];
  return { manifest, runs };
}

async function required(cache: ObjectCache, key: string, signal?: AbortSignal) {
  const cached = await cache.table(key, signal);
  if (!cached) throw new SluiceError('DATA_MISSING', `${key} is missing`, { key });
  return cached;
}

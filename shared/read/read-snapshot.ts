/**
 * What a read sees (DESIGN.md §3.6), as sorted runs newest first: per shard the WAL tail
 * after the cursor (every entry listed is durable, so entries that landed after the read
 * began may be seen too, never one that is not durable) and the committed
 * L0 generations above the base watermark, then the base runs. Every write acked before
 * the read began is in one of them (I10): the base manifest is read before the shard
 * manifests, so a generation is either above the watermark read here or in a run of that
 * base; an acked WAL entry is either past the cursor or in a committed generation.
 */
import { keyCodecFor } from '../arrow/key-codec.ts';
import { SluiceError } from '../errors.ts';
import {
  type BaseManifest,
  type BaseManifestStore,
  type BaseRun,
  mergedThrough,
} from '../lsm/base-manifest.ts';
import type { ShardManifest, ShardManifestStore } from '../lsm/shard-manifest.ts';
import { assertShardOpen } from '../lsm/shard-open.ts';
import type { ShardState } from '../redis/shard-state.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { listWalAfter } from '../wal/frontier.ts';
import { isHole } from '../wal/wal-entry.ts';
import { type CachedTable, derived, type ObjectCache } from './object-cache.ts';
import { fileRun, type SortedRun, walRun } from './sorted-run.ts';

export interface ReadDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  bases: BaseManifestStore;
  shardState: ShardState;
  cache: ObjectCache;
  /** A shard with this many pending generations refuses reads rather than fan out over all of them. */
  pendingRejectGenerations: number;
}

export interface ReadSnapshot {
  base: BaseManifest;
  shards: ShardManifest[];
  /** Newest first. */
  runs: SortedRun[];
}

/** The runs of `shards` and of the base; with `key`, base runs that cannot hold it are left out. */
export async function readSnapshot(
  deps: ReadDeps,
  table: TableDef,
  shards: number[],
  options: { key?: Uint8Array; signal?: AbortSignal } = {},
): Promise<ReadSnapshot> {
  const base = await deps.bases.read(table.name, options.signal);
  const perShard = await Promise.all(
    shards.map((shard) => shardRuns(deps, table, shard, mergedThrough(base, shard), options.signal)),
  );
  const key = options.key ? Buffer.from(options.key).toString('hex') : null;
  const baseRuns = await Promise.all(
    base.runs
      .filter((run) => key === null || mayHold(run, key))
      .map((run) => runOf(deps.cache, run.path, options.signal)),
  );
  return {
    base,
    shards: perShard.map((s) => s.manifest),
    runs: [...perShard.flatMap((s) => s.runs), ...baseRuns],
  };
}

async function shardRuns(
  deps: ReadDeps,
  table: TableDef,
  shard: number,
  watermark: number,
  signal?: AbortSignal,
): Promise<{ manifest: ShardManifest; runs: SortedRun[] }> {
  const manifest = await deps.manifests.read(table.name, shard, signal);
  await assertShardOpen(deps.shardState, manifest);
  const unmerged = manifest.committed.filter((c) => c.generation > watermark);
  const pending = manifest.sealed.length + unmerged.length;
  if (pending >= deps.pendingRejectGenerations) {
    throw new SluiceError(
      'READ_AMPLIFICATION',
      `shard ${shard} has ${pending} pending generations; retry after merges`,
      {
        table: table.name,
        shard,
        pending,
        rejectAt: deps.pendingRejectGenerations,
      },
    );
  }
  const tail = await listWalAfter(deps.store, table.name, shard, manifest.walCursor, signal);
  const codec = keyCodecFor(table.schema);
  const walRuns = await Promise.all(
    tail.map(async ({ seq }) => {
      const cached = await required(deps.cache, walKey(table.name, shard, seq), signal);
      return isHole(cached.table) ? null : derived(cached, 'run', () => walRun(codec, cached.table));
    }),
  );
  const l0Runs = await Promise.all([...unmerged].reverse().map((g) => runOf(deps.cache, g.path, signal)));
  return {
    manifest,
    runs: [...walRuns.filter((run): run is SortedRun => run !== null).reverse(), ...l0Runs],
  };
}

function mayHold(run: BaseRun, key: string): boolean {
  return run.minKey !== null && run.maxKey !== null && run.minKey <= key && key <= run.maxKey;
}

async function runOf(cache: ObjectCache, path: string, signal?: AbortSignal): Promise<SortedRun> {
  const cached = await required(cache, path, signal);
  return derived(cached, 'run', () => fileRun(cached.table));
}

async function required(cache: ObjectCache, key: string, signal?: AbortSignal): Promise<CachedTable> {
  const cached = await cache.table(key, signal);
  if (!cached) throw new SluiceError('DATA_MISSING', `${key} is missing`, { key });
  return cached;
}

/**
 * What a read sees (docs/design.md, "Read"): the pending overlay — per shard the WAL tail after the
 * cursor (every entry listed is durable, so entries that landed after the read began may
 * be seen too, never one that is not durable) and the committed L0 generations above the
 * base watermark, as sorted runs newest first — over the base dataset at the Lance version
 * the base manifest records. Every write acked before the read began is in one of them
 * (I10): the base manifest is read before the shard manifests, so a generation is either
 * above the watermark read here or in that Lance version; an acked WAL entry is either
 * past the cursor or in a committed generation.
 *
 * A snapshot can be pinned (a scan cursor does): the base and shard manifest versions it
 * read, and the WAL entries it listed (per shard on shard lanes, the table's one listing on a
 * table lane), are read again exactly, so every page of a scan sees the same overlay and
 * base. The snapshot's retention cutoff is taken once, from `deps.clock`, and pinned with it
 * (retention-cutoff.ts).
 */
import type { Table } from 'apache-arrow';
import { conformTable } from '../arrow/conform-columns.ts';
import type { BaseDatasets } from '../base/base-datasets.ts';
import { SluiceError } from '../errors.ts';
import {
  type BaseManifest,
  type BaseManifestStore,
  baseSchemaVersion,
  emptyBaseManifest,
  expiredBefore,
  mergedThrough,
} from '../lsm/base-manifest.ts';
import { KEY_COLUMN, runSchema } from '../lsm/run-file.ts';
import { runKeyingFor } from '../lsm/run-keys.ts';
import {
  committedAbove,
  emptyShardManifest,
  listsAllAbove,
  pendingGenerations,
  type ShardManifest,
  type ShardManifestStore,
} from '../lsm/shard-manifest.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import { assertShardOpen } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { schemaAt, type TableDef } from '../table/table-def.ts';
import { schemaVersionOf, walSchema } from '../wal/wal-entry.ts';
import { derived, type ObjectCache, required } from './object-cache.ts';
import { cutoffOf, expiringRuns } from './retention-cutoff.ts';
import type { SnapshotOverlays } from './snapshot-overlay.ts';
import { fileRun, type SortedRun, walRun } from './sorted-run.ts';
import { shardLaneTail, type TailEntry, tableLaneTails } from './wal-tail.ts';

export interface ReadDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  bases: BaseManifestStore;
  datasets: BaseDatasets;
  seqAllocation: SeqAllocation;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
  poisonCache: PoisonCache;
  cache: ObjectCache;
  /** What each snapshot's pending runs hide, and their key order, computed once per snapshot. */
  overlays: SnapshotOverlays;
  /** A shard with this many pending generations refuses reads rather than fan out over all of them. */
  pendingRejectGenerations: number;
  /** Milliseconds since the epoch: the retention cutoff is taken from it. */
  clock: () => number;
}

/** The versions a snapshot read; with them, the same snapshot is read again. */
export interface SnapshotPin {
  base: number;
  /**
   * Per shard read: its manifest version and, on a shard lane, the WAL entries (seqs) listed
   * after its cursor (none on a table lane, whose listing is `lane`).
   */
  shards: Array<{ manifest: number; wal: number[] }>;
  /** On a table lane, the seqs of the table's one listing of its lane; null on shard lanes. */
  lane: number[] | null;
  /** The retention cutoff (ms since the epoch), or null for a table without retention. */
  cutoff: number | null;
}

export interface ReadSnapshot {
  base: BaseManifest;
  shards: ShardManifest[];
  /** The pending overlay, newest first; an upsert below the cutoff reads as a delete. */
  runs: SortedRun[];
  /** Where each run was read from, in the same order. */
  sources: RunSource[];
  pin: SnapshotPin;
  /** Rows below it are not visible (ms since the epoch); null without retention. */
  cutoff: number | null;
}

/** The object a run was read from: a WAL entry (no generation) or a committed L0 file. */
export interface RunSource {
  /** Names the run's rows: the object's key, and of a table lane's entry the shard's section. */
  key: string;
  shard: number;
  generation: number | null;
}

/** Fresh snapshots tried before a read gives up on a table that keeps moving under it. */
const SNAPSHOT_ATTEMPTS = 3;

/**
 * The overlay of `shards` and the base manifest, fresh or as `pin` names them. A shard
 * manifest read after the base manifest must still list every generation above the
 * watermark that base manifest gave: else GC pruned generations merged since, which the
 * base version read does not hold, and the read would answer older values. A fresh
 * snapshot is then taken again; a pinned one has expired.
 */
export async function readSnapshot(
  deps: ReadDeps,
  table: TableDef,
  shards: number[],
  options: { signal?: AbortSignal; pin?: SnapshotPin } = {},
): Promise<ReadSnapshot> {
  const now = deps.clock();
  for (let attempt = 1; ; attempt++) {
    const snapshot = await readOnce(deps, table, shards, now, options);
    const complete = snapshot.shards.every((m) => listsAllAbove(m, mergedThrough(snapshot.base, m.shard)));
    if (complete) return snapshot;
    if (options.pin) throw expired(table.name);
    if (attempt >= SNAPSHOT_ATTEMPTS) {
      throw new SluiceError('SNAPSHOT_MOVED', 'merges moved the table on while it was read; read again', {
        table: table.name,
        attempts: attempt,
      });
    }
  }
}

async function readOnce(
  deps: ReadDeps,
  table: TableDef,
  shards: number[],
  now: number,
  options: { signal?: AbortSignal; pin?: SnapshotPin },
): Promise<ReadSnapshot> {
  const { pin, signal } = options;
  const base = pin
    ? await pinnedBase(deps, table, pin.base, signal)
    : await deps.bases.read(table.name, signal);
  // A base a newer schema made (a widened column) is read under that schema, not this one.
  schemaAt(table, baseSchemaVersion(base));
  const open = (shard: number, i: number) =>
    openShard(deps, table, shard, mergedThrough(base, shard), pin?.shards[i]?.manifest, signal);
  const tails = table.walLane === 'table' ? await tableTails() : await shardTails();
  const perShard = await Promise.all(
    tails.shards.map(({ manifest, tail }) =>
      shardRuns(deps, table, manifest, mergedThrough(base, manifest.shard), tail, signal),
    ),
  );
  const cutoff = pin ? pin.cutoff : cutoffOf(table, now, expiredBefore(base));
  return {
    base,
    shards: tails.shards.map((s) => s.manifest),
    runs: expiringRuns(
      table,
      perShard.flatMap((s) => s.runs),
      cutoff,
    ),
    sources: perShard.flatMap((s) => s.sources),
    pin: {
      base: base.version,
      shards: tails.shards.map((s) => ({ manifest: s.manifest.version, wal: s.listed })),
      lane: tails.lane,
      cutoff,
    },
    cutoff,
  };

  // Each shard lists its own lane once its manifest is read.
  async function shardTails(): Promise<Tails> {
    const read = await Promise.all(
      shards.map(async (shard, i) => {
        const manifest = await open(shard, i);
        const { entries, seqs } = await shardLaneTail(deps, manifest, pin?.shards[i]?.wal, signal);
        return { manifest, tail: entries, listed: seqs };
      }),
    );
    return { shards: read, lane: null };
  }

  // I10/I19: the table's lane is listed once, after every manifest was read.
  async function tableTails(): Promise<Tails> {
    const manifests = await Promise.all(shards.map(open));
    const { entries, seqs } = await tableLaneTails(
      deps,
      table.name,
      manifests,
      pin?.lane ?? undefined,
      signal,
    );
    return {
      shards: manifests.map((manifest, i) => ({ manifest, tail: entries[i]!, listed: [] })),
      lane: seqs,
    };
  }
}

/** Per shard read, its manifest and WAL tail; the table lane's listing, if any. */
interface Tails {
  shards: Array<{ manifest: ShardManifest; tail: TailEntry[]; listed: number[] }>;
  lane: number[] | null;
}

async function pinnedBase(deps: ReadDeps, table: TableDef, version: number, signal?: AbortSignal) {
  if (version === 0) return emptyBaseManifest(table.name);
  const base = await deps.bases.readVersion(table.name, version, signal);
  if (!base) throw expired(table.name);
  return base;
}

function expired(table: string): SluiceError {
  return new SluiceError(
    'CURSOR_EXPIRED',
    'the scan cursor names versions that are gone; scan again without after',
    {
      table,
    },
  );
}

/** The shard's manifest, fresh or at the pinned version; refused when poisoned or too far behind. */
async function openShard(
  deps: ReadDeps,
  table: TableDef,
  shard: number,
  watermark: number,
  pinned: number | undefined,
  signal?: AbortSignal,
): Promise<ShardManifest> {
  const manifest =
    pinned === undefined
      ? await deps.manifests.read(table.name, shard, signal)
      : pinned === 0
        ? emptyShardManifest(table.name, shard)
        : await deps.manifests.readVersion(table.name, shard, pinned, signal);
  if (!manifest) throw expired(table.name);
  await assertShardOpen(deps.poisonCache, manifest);
  const pending = pendingGenerations(manifest, watermark);
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
  return manifest;
}

/** The shard's runs, newest first: its WAL tail, then its committed generations above the watermark. */
async function shardRuns(
  deps: ReadDeps,
  table: TableDef,
  manifest: ShardManifest,
  watermark: number,
  tail: readonly TailEntry[],
  signal?: AbortSignal,
): Promise<{ runs: SortedRun[]; sources: RunSource[] }> {
  const { shard } = manifest;
  const keying = runKeyingFor(table, shard);
  const walRuns = tail.map((entry) =>
    derived(entry.cached, `${runKey(table)}:${shard}`, () =>
      walRun(keying, { seq: entry.seq, table: current(table, entry.rows) }),
    ),
  );
  const unmerged = [...committedAbove(manifest, watermark)].reverse();
  const l0Runs = await Promise.all(unmerged.map((g) => runOf(deps.cache, table, g.path, signal)));
  const newestFirst = [...tail].reverse();
  return {
    runs: [...walRuns.reverse(), ...l0Runs],
    sources: [
      ...newestFirst.map((e) => ({ key: e.source, shard, generation: null })),
      ...unmerged.map((g) => ({ key: g.path, shard, generation: g.generation })),
    ],
  };
}

async function runOf(
  cache: ObjectCache,
  table: TableDef,
  path: string,
  signal?: AbortSignal,
): Promise<SortedRun> {
  const cached = await required(cache, path, signal);
  return derived(cached, runKey(table), () => fileRun(current(table, cached.table)));
}

/** A run is kept per schema version it was read under: its rows carry that version's columns. */
function runKey(table: TableDef): string {
  return `run@${table.schema.version}`;
}

/**
 * The object's rows under the table's schema as this process holds it: columns added since
 * it was written read as null; an object of a newer schema than that is SCHEMA_OUTDATED.
 */
function current(table: TableDef, rows: Table): Table {
  schemaAt(table, schemaVersionOf(rows));
  const wal = walSchema(table.schema);
  const keyed = rows.schema.fields.some((f) => f.name === KEY_COLUMN);
  return conformTable(keyed ? runSchema(wal) : wal, rows);
}

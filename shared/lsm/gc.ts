/**
 * Garbage collection: WAL entries below the cursor (a table lane's below every shard's), L0
 * files at or below the base watermark (and their entries in the shard manifest) and old
 * manifest versions go away — but only what a manifest version at least `graceMs` old
 * already stopped needing. A reader reads manifests first and then the objects they name;
 * one that began before that version was committed has had the whole grace period to
 * finish, so nothing it still needs is taken.
 */
import { gcDeletedObjects } from '../metrics.ts';
import { deleteAll } from '../store/delete-all.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { Versioned } from '../store/versioned-document.ts';
import { generationPrefix, numberFromKey, tableWalPrefix, walPrefix } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { type BaseManifest, type BaseManifestStore, mergedThrough } from './base-manifest.ts';
import { pruneMerged } from './manifest-transitions.ts';
import type { ShardManifest, ShardManifestStore } from './shard-manifest.ts';

export interface GcDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  bases: BaseManifestStore;
}

export interface GcOutcome {
  wal: number;
  l0: number;
  manifests: number;
}

/** Collects one table; the base dataset's old versions are Lance's optimize's to remove. */
export async function collectTable(
  deps: GcDeps,
  table: TableDef,
  options: { now: number; graceMs: number },
): Promise<GcOutcome> {
  const cutoff = options.now - options.graceMs;
  const outcome: GcOutcome = { wal: 0, l0: 0, manifests: 0 };
  const base = await settledVersion(
    await deps.bases.listStored(table.name),
    (v) => deps.bases.readVersion(table.name, v),
    cutoff,
  );
  const ownLanes = table.walLane !== 'table';
  // A table lane's entry is every shard's: it goes at or below the lowest settled cursor.
  let laneCursor = Number.POSITIVE_INFINITY;
  for (let shard = 0; shard < table.shards; shard++) {
    const shardOutcome = await collectShard(deps, table.name, shard, base?.doc ?? null, cutoff, ownLanes);
    outcome.wal += shardOutcome.wal;
    outcome.l0 += shardOutcome.l0;
    outcome.manifests += shardOutcome.manifests;
    laneCursor = Math.min(laneCursor, shardOutcome.walCursor);
  }
  if (!ownLanes) outcome.wal += await deleteNumbered(deps.store, tableWalPrefix(table.name), laneCursor);
  if (base) {
    outcome.manifests += await deleteAll(
      deps.store,
      base.older.map((v) => deps.bases.versionKey(table.name, v)),
    );
  }
  gcDeletedObjects.inc({ kind: 'wal' }, outcome.wal);
  gcDeletedObjects.inc({ kind: 'l0' }, outcome.l0);
  gcDeletedObjects.inc({ kind: 'manifest' }, outcome.manifests);
  return outcome;
}

/**
 * One shard's L0 files and manifest versions, and its own WAL when `ownLane`; `walCursor` is
 * its settled version's cursor, 0 when no version is settled yet (a table lane keeps all).
 * A poisoned shard's cursor counts like any other: its sections wait in the lane for reopen.
 */
async function collectShard(
  deps: GcDeps,
  table: string,
  shard: number,
  base: BaseManifest | null,
  cutoff: number,
  ownLane: boolean,
): Promise<GcOutcome & { walCursor: number }> {
  const settled = await settledVersion(
    await deps.manifests.listStored(table, shard),
    (v) => deps.manifests.readVersion(table, shard, v),
    cutoff,
  );
  if (!settled) return { wal: 0, l0: 0, manifests: 0, walCursor: 0 };
  const manifest: ShardManifest = settled.doc;
  // I4: everything at or below the settled cursor is in a committed generation.
  const wal = ownLane ? await deleteNumbered(deps.store, walPrefix(table, shard), manifest.walCursor) : 0;
  const watermark = Math.min(base ? mergedThrough(base, shard) : 0, manifest.currentGeneration - 1);
  const l0 = await deleteNumbered(deps.store, generationPrefix(table, shard), watermark);
  if (watermark > 0) await deps.manifests.update(table, shard, (m) => pruneMerged(m, watermark));
  const manifests = await deleteAll(
    deps.store,
    settled.older.map((v) => deps.manifests.versionKey(table, shard, v)),
  );
  return { wal, l0, manifests, walCursor: manifest.walCursor };
}

/**
 * The newest version the store took at least a grace period ago, and the versions older
 * than it. Only what that version no longer needs may go: every version after it is
 * younger than the grace period. Store times may be whole seconds, hence the extra second.
 */
async function settledVersion<T extends Versioned>(
  stored: Array<{ version: number; storedAt: number }>,
  read: (version: number) => Promise<T | null>,
  cutoff: number,
): Promise<{ doc: T; older: number[] } | null> {
  const index = stored.findLastIndex((v) => v.storedAt <= cutoff - 1000);
  if (index < 0) return null;
  const doc = await read(stored[index]!.version);
  return doc ? { doc, older: stored.slice(0, index).map((v) => v.version) } : null;
}

/** Deletes the objects `{prefix}{n:020}.*` with n <= `through`. */
async function deleteNumbered(store: ObjectStore, prefix: string, through: number): Promise<number> {
  if (through <= 0) return 0;
  const doomed: string[] = [];
  for await (const page of store.list(prefix)) {
    for (const meta of page) {
      const n = numberFromKey(meta.key);
      if (n !== null && n <= through) doomed.push(meta.key);
    }
    const last = numberFromKey(page.at(-1)?.key ?? '');
    if (last !== null && last > through) break;
  }
  return deleteAll(store, doomed);
}

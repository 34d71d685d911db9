/**
 * The `stats` of a table description (docs/design.md, "Response shapes"): the base's record, Lance version
 * and live rows, and the shard stats of every shard, summed. Readable whatever state the shards are in,
 * like shard stats themselves.
 */

import type { BaseHealth } from '../base/base-health.ts';
import { countBase } from '../base/pinned-read.ts';
import { type BaseManifest, mergedThrough } from '../lsm/base-manifest.ts';
import type { TableDef } from '../table/table-def.ts';
import type { ReadDeps } from './read-snapshot.ts';
import { type ShardStats, statsOf } from './shard-stats.ts';
import { unsealedOf } from './unsealed.ts';

export interface TableStats {
  /** Version of the base manifest, Sluice's record of the base. */
  baseVersion: number;
  /** The Lance version of the base dataset that record names (null before the first merge). */
  baseLanceVersion: number | null;
  /** Live rows of the base dataset at that version: each key once, deleted keys not at all. */
  baseRows: number;
  pendingGenerations: number;
  /** Rows of the committed generations not yet merged into the base. */
  pendingRows: number;
  poisonedShards: number;
  sealedGenerations: number;
  committedGenerations: number;
  /** Rows of the WAL entries in sealed generations, before last-write-wins. */
  sealedRows: number;
  /** Rows of the committed L0 generations; a key written in two generations counts twice. */
  committedRows: number;
  unsealedEntries: number;
  unsealedBytes: number;
  /** The base's latest version: fragments and how many rows each index covers; null before the first merge. */
  base: BaseHealth | null;
}

export async function tableStats(deps: ReadDeps, table: TableDef, signal?: AbortSignal): Promise<TableStats> {
  const reading = deps.bases.read(table.name, signal);
  const [base, all, health] = await Promise.all([
    reading,
    everyShard(deps, table, reading, signal),
    deps.datasets.health(table),
  ]);
  const sum = (of: (s: ShardStats) => number) => all.reduce((total, s) => total + of(s), 0);
  return {
    baseVersion: base.version,
    baseLanceVersion: base.lanceVersion,
    baseRows: base.lanceVersion === null ? 0 : await countBase(deps.datasets, table, base.lanceVersion),
    pendingGenerations: sum((s) => s.pendingGenerations),
    pendingRows: sum((s) =>
      s.committed.filter((g) => g.generation > s.mergedThrough).reduce((rows, g) => rows + g.rows, 0),
    ),
    poisonedShards: sum((s) => (s.poison ? 1 : 0)),
    sealedGenerations: sum((s) => s.sealed.length),
    committedGenerations: sum((s) => s.committed.length),
    sealedRows: sum((s) => s.sealed.reduce((rows, g) => rows + g.walRows, 0)),
    committedRows: sum((s) => s.committed.reduce((rows, g) => rows + g.rows, 0)),
    unsealedEntries: sum((s) => s.unsealedEntries),
    unsealedBytes: sum((s) => s.unsealedBytes),
    base: health,
  };
}

/** The stats of every shard, their WAL past the sealed ranges read together: a table lane is listed once. */
async function everyShard(
  deps: ReadDeps,
  table: TableDef,
  reading: Promise<BaseManifest>,
  signal?: AbortSignal,
): Promise<ShardStats[]> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  // Read before the manifests, as a shard's stats read it: its generations merged since are pending still.
  const base = await reading;
  const manifests = await Promise.all(shards.map((shard) => deps.manifests.read(table.name, shard, signal)));
  const unsealed = await unsealedOf(deps, table, manifests, signal);
  return Promise.all(
    manifests.map((m, i) => statsOf(deps, table, m, mergedThrough(base, m.shard), unsealed[i]!)),
  );
}

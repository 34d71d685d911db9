/**
 * The `stats` of a table description (DESIGN.md §5): the base manifest's version and rows,
 * and the shard stats of every shard, summed. Readable whatever state the shards are in,
 * like shard stats themselves.
 */
import type { TableDef } from '../table/table-def.ts';
import type { ReadDeps } from './read-snapshot.ts';
import { type ShardStats, shardStats } from './shard-stats.ts';

export interface TableStats {
  baseVersion: number;
  /** Rows of the base runs less their tombstones; a key in two runs (before compaction) counts twice. */
  baseRows: number;
  baseRuns: number;
  pendingGenerations: number;
  poisonedShards: number;
  sealedGenerations: number;
  committedGenerations: number;
  /** Rows of the WAL entries in sealed generations, before last-write-wins. */
  sealedRows: number;
  /** Rows of the committed L0 generations; a key written in two generations counts twice. */
  committedRows: number;
  unsealedEntries: number;
  unsealedBytes: number;
}

export async function tableStats(deps: ReadDeps, table: TableDef, signal?: AbortSignal): Promise<TableStats> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const [base, all] = await Promise.all([
    deps.bases.read(table.name, signal),
    Promise.all(shards.map((shard) => shardStats(deps, table, shard, signal))),
  ]);
  const sum = (of: (s: ShardStats) => number) => all.reduce((total, s) => total + of(s), 0);
  return {
    baseVersion: base.version,
    baseRows: base.runs.reduce((rows, run) => rows + run.rows - run.tombstones, 0),
    baseRuns: base.runs.length,
    pendingGenerations: sum((s) => s.pendingGenerations),
    poisonedShards: sum((s) => (s.poison ? 1 : 0)),
    sealedGenerations: sum((s) => s.sealed.length),
    committedGenerations: sum((s) => s.committed.length),
    sealedRows: sum((s) => s.sealed.reduce((rows, g) => rows + g.walRows, 0)),
    committedRows: sum((s) => s.committed.reduce((rows, g) => rows + g.rows, 0)),
    unsealedEntries: sum((s) => s.unsealedEntries),
    unsealedBytes: sum((s) => s.unsealedBytes),
  };
}

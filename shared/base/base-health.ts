/**
 * How well a base can answer: its fragments (Lance's count of small, uncompacted ones is
 * what an optimize rewrites) and how many rows each index covers. The merge lane decides
 * on it whether to optimize; describe and the sampler's gauges show it.
 */
import type { LanceTable } from './lance-module.ts';

export interface IndexCoverage {
  name: string;
  columns: string[];
  /** Lance's name of the index type (BTree, Bitmap, IvfPq, IvfHnswSq, Inverted…). */
  type: string;
  indexedRows: number;
  unindexedRows: number;
}

export interface BaseHealth {
  /** The Lance version measured: the latest. */
  version: number;
  /** Lance versions the base keeps: what cleanup has left. */
  versions: number;
  rows: number;
  fragments: number;
  smallFragments: number;
  indexes: IndexCoverage[];
}

export async function measureBase(handle: LanceTable): Promise<BaseHealth> {
  const [version, versions, stats, indexes] = await Promise.all([
    handle.version(),
    handle.listVersions(),
    handle.stats(),
    handle.listIndices(),
  ]);
  return {
    version,
    versions: versions.length,
    rows: stats.numRows,
    fragments: stats.fragmentStats.numFragments,
    smallFragments: stats.fragmentStats.numSmallFragments,
    indexes: await Promise.all(
      indexes.map(async (index) => {
        const coverage = await handle.indexStats(index.name);
        return {
          name: index.name,
          columns: [...index.columns],
          type: index.indexType,
          indexedRows: coverage?.numIndexedRows ?? 0,
          unindexedRows: coverage?.numUnindexedRows ?? stats.numRows,
        };
      }),
    ),
  };
}

/** The most rows any one index leaves uncovered: what an index update would add. */
export function unindexedRows(health: BaseHealth): number {
  return Math.max(0, ...health.indexes.map((i) => i.unindexedRows));
}

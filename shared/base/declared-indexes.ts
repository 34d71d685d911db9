/**
 * Builds the declared indexes a base does not have yet (docs/base-table.md, "Declared
 * indexes"), as LanceDB spells them. An index is built once the base has rows enough to
 * train it (a vector index's partitions and quantizer need a few hundred); from then on
 * every optimize brings it up to date. Each build is a CreateIndex commit, a layout commit.
 */
import { type IndexDecl, indexName, isVectorIndex } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';
import type { BaseHealth } from './base-health.ts';
import { type LanceTable, lanceDb } from './lance-module.ts';

/** Rows a vector index needs before it is built: PQ trains 256 centroids per sub-vector. */
export const VECTOR_INDEX_MIN_ROWS = 256;

/** Declared indexes the base lacks and has rows enough for. */
export function indexesToBuild(decls: readonly IndexDecl[], health: BaseHealth): IndexDecl[] {
  const built = new Set(health.indexes.map((i) => i.name));
  return decls.filter(
    (d) => !built.has(indexName(d)) && health.rows >= (isVectorIndex(d) ? VECTOR_INDEX_MIN_ROWS : 1),
  );
}

export async function buildIndexes(handle: LanceTable, table: TableDef, decls: readonly IndexDecl[]) {
  for (const decl of decls) {
    const type = table.schema.fields.find((f) => f.name === decl.column)?.type;
    const dim = type?.kind === 'vector' ? type.dim : 0;
    const config = lanceIndexConfig(decl, dim, await handle.countRows());
    await handle.createIndex(decl.column, { config, name: indexName(decl), replace: true });
  }
}

function lanceIndexConfig(decl: IndexDecl, dim: number, rows: number) {
  const { Index } = lanceDb();
  const distanceType = decl.metric ?? 'l2';
  const numPartitions = ivfPartitions(decl, rows);
  switch (decl.type) {
    case 'btree':
      return Index.btree();
    case 'bitmap':
      return Index.bitmap();
    case 'fts':
      return Index.fts();
    case 'ivf_pq':
      return Index.ivfPq({
        distanceType,
        numPartitions,
        numSubVectors: decl.params?.numSubVectors ?? subVectors(dim),
      });
    case 'ivf_hnsw_sq':
      return Index.hnswSq({ distanceType, numPartitions });
  }
}

/**
 * The IVF partitions of a declared vector index built on `rows` rows. Lance's own defaults
 * assume large tables.
 */
export function ivfPartitions(decl: IndexDecl, rows: number): number {
  return decl.params?.numPartitions ?? Math.max(1, Math.min(256, Math.floor(Math.sqrt(rows / 16))));
}

/** The most sub-vectors of 8 or 16 dimensions that divide `dim`; 1 when none do. */
function subVectors(dim: number): number {
  if (dim % 16 === 0) return dim / 16;
  if (dim % 8 === 0) return dim / 8;
  return 1;
}

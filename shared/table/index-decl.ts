/**
 * A declared index (`indexes` at create, or `POST /v1/tables/{t}/indexes`): a column and
 * the kind of index Sluice builds on the base for it once there are rows enough, and keeps
 * up to date with every optimize (docs/base-table.md, "Declared indexes"). One index per
 * column; the primary key has its btree already.
 */
import type { ColumnKind } from '../arrow/column-type.ts';
import type { TableSchema } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';

export const INDEX_TYPES = ['btree', 'bitmap', 'ivf_pq', 'ivf_hnsw_sq', 'fts'] as const;
export type IndexType = (typeof INDEX_TYPES)[number];

export const METRICS = ['l2', 'cosine', 'dot'] as const;
export type Metric = (typeof METRICS)[number];

export interface IndexDecl {
  readonly column: string;
  readonly type: IndexType;
  /** Vector indexes only; l2 when absent. */
  readonly metric?: Metric;
  /** Vector indexes only: IVF partitions (and PQ sub-vectors); Lance's defaults when absent. */
  readonly params?: { readonly numPartitions?: number; readonly numSubVectors?: number };
}

const SCALAR: readonly ColumnKind[] = ['int32', 'int64', 'float32', 'float64', 'bool', 'utf8', 'timestamp'];

/** Which column kinds each index type can index. */
const FITS: Readonly<Record<IndexType, readonly ColumnKind[]>> = {
  btree: SCALAR,
  bitmap: SCALAR,
  ivf_pq: ['vector'],
  ivf_hnsw_sq: ['vector'],
  fts: ['utf8'],
};

const KEYS = new Set(['column', 'type', 'metric', 'params']);
const PARAMS = new Set(['numPartitions', 'numSubVectors']);

/** The name Sluice gives the index on the base: LanceDB's own default for the column. */
export function indexName(decl: Pick<IndexDecl, 'column'>): string {
  return `${decl.column}_idx`;
}

export function isVectorIndex(decl: IndexDecl): boolean {
  return decl.type === 'ivf_pq' || decl.type === 'ivf_hnsw_sq';
}

export function parseIndexDecl(input: unknown, schema: TableSchema): IndexDecl {
  if (!isPlainObject(input)) throw invalid('an index is a JSON object {column, type, metric?, params?}');
  const unknown = Object.keys(input).find((key) => !KEYS.has(key));
  if (unknown !== undefined)
    throw invalid(`unknown index property "${unknown}"; send column, type, metric, params`);
  const { column, type, metric, params } = input;
  const field = schema.fields.find((f) => f.name === column);
  if (typeof column !== 'string' || !field) {
    throw invalid(`"column" must name a column of the table: ${schema.fields.map((f) => f.name).join(', ')}`);
  }
  if (!INDEX_TYPES.includes(type as IndexType))
    throw invalid(`"type" must be one of ${INDEX_TYPES.join(', ')}`);
  const decl = { column, type: type as IndexType };
  if (!FITS[decl.type].includes(field.type.kind)) {
    const fitting = INDEX_TYPES.filter((t) => FITS[t].includes(field.type.kind));
    throw invalid(
      `a ${decl.type} index does not fit ${column} (${field.type.kind}); it can take ${fitting.join(', ') || 'no index'}`,
    );
  }
  if (schema.primaryKey.length === 1 && schema.primaryKey[0] === column) {
    throw new SluiceError('INDEX_EXISTS', `${column} is the primary key, which has its btree index already`, {
      column,
    });
  }
  if (!isVectorIndex(decl)) {
    if (metric !== undefined || params !== undefined)
      throw invalid('"metric" and "params" are for vector indexes only');
    return decl;
  }
  if (metric !== undefined && !METRICS.includes(metric as Metric)) {
    throw invalid(`"metric" must be one of ${METRICS.join(', ')}`);
  }
  return { ...decl, metric: (metric as Metric | undefined) ?? 'l2', ...parseParams(params) };
}

function parseParams(params: unknown): Pick<IndexDecl, 'params'> {
  if (params === undefined) return {};
  if (!isPlainObject(params)) throw invalid('"params" is an object {numPartitions?, numSubVectors?}');
  for (const [name, value] of Object.entries(params)) {
    if (!PARAMS.has(name))
      throw invalid(`unknown index parameter "${name}"; known: numPartitions, numSubVectors`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw invalid(`"params.${name}" must be a positive integer`);
    }
  }
  return { params: params as IndexDecl['params'] };
}

/** Declarations of a create body (`indexes`); one per column. */
export function parseIndexDecls(input: unknown, schema: TableSchema): IndexDecl[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) throw invalid('"indexes" must be an array of {column, type, metric?, params?}');
  const decls = input.map((item) => parseIndexDecl(item, schema));
  const twice = decls.find((d, i) => decls.findIndex((e) => e.column === d.column) !== i);
  if (twice)
    throw new SluiceError('INDEX_EXISTS', `${twice.column} is declared twice`, { column: twice.column });
  return decls;
}

function invalid(message: string): SluiceError {
  return new SluiceError('INVALID_INDEX', message, {});
}

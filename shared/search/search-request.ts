/**
 * A search as the domain takes it (docs/design.md, "Search"): nearest neighbours of a
 * vector, a full-text query, or neither (the rows a filter passes), with an optional Lance
 * SQL filter, checked against the table before anything is read. Every refusal is
 * INVALID_SEARCH naming what to send; a filter Lance cannot run is refused by
 * `checkFilter` (search-filter.ts), quoting Lance.
 */
import type { ColumnDef } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import { type IndexDecl, isVectorIndex, METRICS, type Metric } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';

export const MAX_K = 1000;
export const DEFAULT_K = 10;
const MAX_FILTER_CHARS = 10_000;
const MAX_TEXT_CHARS = 10_000;

/** The wire's search body, its shape already checked (functions/openapi/schemas.ts). */
export interface SearchInput {
  vector?: number[];
  column?: string;
  text?: string;
  textColumn?: string;
  k?: number;
  filter?: string;
  columns?: string[];
  metric?: Metric;
  nprobes?: number;
  refineFactor?: number;
  withDistance?: boolean;
  after?: string;
}

export interface VectorQuery {
  kind: 'vector';
  column: string;
  vector: Float32Array;
  metric: Metric;
  nprobes: number | null;
  refineFactor: number | null;
}

export interface TextQuery {
  kind: 'text';
  column: string;
  text: string;
}

export interface FilterQuery {
  kind: 'filter';
}

export type SearchQuery = VectorQuery | TextQuery | FilterQuery;

export interface SearchRequest {
  query: SearchQuery;
  k: number;
  filter: string | null;
  columns: readonly string[] | null;
  /** Answer each row's `_distance` (vector) or `_score` (text). */
  withScore: boolean;
  /** A filter alone is a scan: the `next` of its previous page. */
  after: string | null;
}

/** Whether the search ranks rows (by a vector or a text) rather than scanning what a filter passes. */
export function ranked(input: SearchInput): boolean {
  return input.vector !== undefined || input.text !== undefined;
}

function refuse(message: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('INVALID_SEARCH', message, details);
}

export function parseSearch(
  table: TableDef,
  input: SearchInput,
  declared: readonly IndexDecl[],
): SearchRequest {
  const k = input.k ?? DEFAULT_K;
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
    throw refuse(`k is how many rows to answer: send an integer from 1 to ${MAX_K}`, { k });
  }
  const filter = input.filter?.trim() || null;
  if (filter !== null && filter.length > MAX_FILTER_CHARS) {
    throw refuse(`the filter is ${filter.length} characters; send at most ${MAX_FILTER_CHARS}`);
  }
  const query = queryOf(table, input, declared);
  if (input.after !== undefined && query.kind !== 'filter') {
    throw refuse('after pages a search by filter alone; a vector or text search answers its k best at once');
  }
  return {
    query,
    k,
    filter,
    columns: input.columns ?? null,
    withScore: input.withDistance ?? true,
    after: input.after ?? null,
  };
}

function queryOf(table: TableDef, input: SearchInput, declared: readonly IndexDecl[]): SearchQuery {
  const vectorParts = ['column', 'metric', 'nprobes', 'refineFactor'] as const;
  if (input.vector !== undefined && input.text !== undefined) {
    throw refuse('send vector (nearest neighbours) or text (full text), not both in one search');
  }
  if (input.vector !== undefined) return vectorQuery(table, input, declared);
  const stray = vectorParts.filter((name) => input[name] !== undefined);
  if (stray.length > 0)
    throw refuse(`${stray.join(', ')} go with vector; send vector too, or leave them out`);
  if (input.text !== undefined) return textQuery(table, input, declared);
  if (input.textColumn !== undefined)
    throw refuse('textColumn goes with text; send text too, or leave it out');
  return { kind: 'filter' };
}

function vectorQuery(table: TableDef, input: SearchInput, declared: readonly IndexDecl[]): VectorQuery {
  if (input.textColumn !== undefined) throw refuse('textColumn goes with text, not with vector');
  const vectors = table.schema.fields.filter((c) => c.type.kind === 'vector');
  const column =
    input.column === undefined ? onlyVectorColumn(table, vectors) : namedColumn(table, input.column);
  if (column.type.kind !== 'vector') {
    throw refuse(
      `column "${column.name}" is not a vector column; name one of: ${vectors.map((c) => c.name).join(', ') || '(the table has none)'}`,
    );
  }
  const values = input.vector!;
  if (values.length !== column.type.dim) {
    throw refuse(
      `vector has ${values.length} numbers; column "${column.name}" holds vectors of ${column.type.dim}`,
      {
        column: column.name,
        dim: column.type.dim,
      },
    );
  }
  const bad = values.findIndex((v) => !Number.isFinite(v) || Math.abs(v) > 3.4e38);
  if (bad >= 0) throw refuse(`vector[${bad}] is not a finite float32; send finite numbers`);
  const index = declared.find((d) => d.column === column.name && isVectorIndex(d));
  const metric = input.metric ?? index?.metric ?? 'l2';
  if (!METRICS.includes(metric)) throw refuse(`metric is one of ${METRICS.join(', ')}`);
  return {
    kind: 'vector',
    column: column.name,
    vector: Float32Array.from(values),
    metric,
    nprobes: positive(input.nprobes, 'nprobes'),
    refineFactor: positive(input.refineFactor, 'refineFactor'),
  };
}

function textQuery(table: TableDef, input: SearchInput, declared: readonly IndexDecl[]): TextQuery {
  const text = input.text!.trim();
  if (text === '' || text.length > MAX_TEXT_CHARS) {
    throw refuse(`text is the words to search for: send 1 to ${MAX_TEXT_CHARS} characters`);
  }
  const fts = declared.filter((d) => d.type === 'fts');
  const column =
    input.textColumn === undefined
      ? fts.length === 1
        ? fts[0]!.column
        : null
      : namedColumn(table, input.textColumn).name;
  if (column === null || !fts.some((d) => d.column === column)) {
    const which = column === null ? 'name the textColumn' : `column "${column}" has no full-text index`;
    throw refuse(
      `${which}: a full-text search runs on a utf8 column with a declared fts index (POST /v1/tables/${table.name}/indexes {"column": …, "type": "fts"}); declared: ${fts.map((d) => d.column).join(', ') || 'none'}`,
    );
  }
  return { kind: 'text', column, text };
}

function onlyVectorColumn(table: TableDef, vectors: readonly ColumnDef[]): ColumnDef {
  if (vectors.length === 1) return vectors[0]!;
  throw refuse(
    vectors.length === 0
      ? `table ${table.name} has no vector column to search`
      : `name the column to search: one of ${vectors.map((c) => c.name).join(', ')}`,
  );
}

function namedColumn(table: TableDef, name: string): ColumnDef {
  const column = table.schema.fields.find((c) => c.name === name);
  if (!column) {
    throw refuse(
      `unknown column "${name.slice(0, 100)}"; the columns of ${table.name} are ${table.schema.fields.map((c) => c.name).join(', ')}`,
    );
  }
  return column;
}

function positive(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isInteger(value) || value < 1 || value > 100_000)
    throw refuse(`${name} is an integer from 1 to 100000`);
  return value;
}

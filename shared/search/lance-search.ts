/**
 * One search as a LanceDB query, built the same way on the base and on every pending
 * table (pending-tables.ts), so the filter, the metric and the full-text query have one
 * meaning for both: nearest neighbours (`_distance`, smaller is nearer), full text
 * (`_score`, larger is better), or the rows a filter passes.
 */
import type { RecordBatch } from 'apache-arrow';
import type { SCORE_COLUMNS } from '../arrow/schema.ts';
import { type LanceTable, queryRows } from '../base/lance-module.ts';
import { SluiceError } from '../errors.ts';
import { lanceReason } from './search-filter.ts';
import type { SearchQuery, SearchRequest } from './search-request.ts';

type Searchable = ReturnType<LanceTable['query']> | ReturnType<LanceTable['vectorSearch']>;

export async function runSearch(
  handle: LanceTable,
  request: SearchRequest,
  columns: readonly string[],
  limit: number,
  { flat = false }: { flat?: boolean } = {},
): Promise<RecordBatch[]> {
  const started = queryOf(handle, request.query, flat);
  const filtered = request.filter === null ? started : started.where(request.filter);
  const score = scoreColumnOf(request.query);
  // Named in the projection, as Lance wants it (it warns on every search that leaves it out).
  const select = score === null ? [...columns] : [...columns, score];
  return queryRows(filtered.select(select).limit(limit)).catch((err: unknown) => {
    throw request.filter !== null && FILTER_FAILED.test(String(err))
      ? filterFailed(request.filter, err)
      : err;
  });
}

/** `_distance` for nearest neighbours (smaller is nearer), `_score` for full text (larger is better). */
export function scoreColumnOf(query: SearchQuery): (typeof SCORE_COLUMNS)[number] | null {
  return query.kind === 'vector' ? '_distance' : query.kind === 'text' ? '_score' : null;
}

/** A filter that passed the check on no rows and fails on these: a division by zero, a cast of a value. */
const FILTER_FAILED = /Error applying filter expression|Invalid user input/;

function filterFailed(filter: string, err: unknown): SluiceError {
  return new SluiceError('INVALID_FILTER', `the filter failed on the table's rows: ${lanceReason(err)}`, {
    filter: filter.slice(0, 200),
  });
}

/** `flat`: every row compared, whatever vector index the table holds. */
function queryOf(handle: LanceTable, query: SearchQuery, flat: boolean): Searchable {
  if (query.kind === 'text') return handle.query().fullTextSearch(query.text, { columns: [query.column] });
  if (query.kind === 'filter') return handle.query();
  let vector = handle.vectorSearch(query.vector).column(query.column).distanceType(query.metric);
  if (query.nprobes !== null) vector = vector.nprobes(query.nprobes);
  if (query.refineFactor !== null) vector = vector.refineFactor(query.refineFactor);
  return flat ? vector.bypassVectorIndex() : vector;
}

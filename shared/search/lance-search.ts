/**
 * One search as a LanceDB query, built the same way on the base and on every pending
 * table (pending-tables.ts), so the filter, the metric and the full-text query have one
 * meaning for both: nearest neighbours (`_distance`, smaller is nearer), full text
 * (`_score`, larger is better), or the rows a filter passes.
 */
import type { RecordBatch } from 'apache-arrow';
import { type LanceTable, queryRows } from '../base/lance-module.ts';
import type { SearchQuery, SearchRequest } from './search-request.ts';

type Searchable = ReturnType<LanceTable['query']> | ReturnType<LanceTable['vectorSearch']>;

export async function runSearch(
  handle: LanceTable,
  request: SearchRequest,
  columns: readonly string[],
  limit: number,
): Promise<RecordBatch[]> {
  const started = queryOf(handle, request.query);
  const filtered = request.filter === null ? started : started.where(request.filter);
  return queryRows(filtered.select([...columns, ...scoreColumns(request.query)]).limit(limit));
}

/** Named in the projection, as Lance wants them (it warns on every search that leaves its score out). */
function scoreColumns(query: SearchQuery): string[] {
  return query.kind === 'vector' ? ['_distance'] : query.kind === 'text' ? ['_score'] : [];
}

function queryOf(handle: LanceTable, query: SearchQuery): Searchable {
  if (query.kind === 'text') return handle.query().fullTextSearch(query.text, { columns: [query.column] });
  if (query.kind === 'filter') return handle.query();
  let vector = handle.vectorSearch(query.vector).column(query.column).distanceType(query.metric);
  if (query.nprobes !== null) vector = vector.nprobes(query.nprobes);
  if (query.refineFactor !== null) vector = vector.refineFactor(query.refineFactor);
  return vector;
}

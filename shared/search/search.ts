/**
 * A search over the base and every pending row (docs/design.md, "Search"), on one
 * snapshot as reads take it: the base at its recorded Lance version, the committed L0
 * generations above the watermark and the WAL tail, newest first. The pending runs are
 * searched as tables in memory (pending-tables.ts), one per run or per block of generations
 * (pending-groups.ts), each by its graph when it has one (vector-graph.ts), and the
 * rows newer runs supersede are dropped; the base drops every key the overlay holds. Each
 * side is searched for k at first, and for more, up to k plus what it drops, while dropped
 * rows crowd out the k: so a flat search is exact, and an indexed one misses only what its
 * index misses. The candidates are merged by distance (or score), newest value per key, no
 * deleted row.
 */
import { Float32, type RecordBatch, type Schema, Table, vectorFromArray } from 'apache-arrow';
import { conformColumns } from '../arrow/conform-columns.ts';
import { keyCodecFor } from '../arrow/key-codec.ts';
import { takeRows } from '../arrow/take.ts';
import { ivfPartitions } from '../base/declared-indexes.ts';
import type { LanceTable } from '../base/lance-module.ts';
import { assertHasColumns, columnsPresent } from '../base/pinned-read.ts';
import { SluiceError } from '../errors.ts';
import { probedShares, searchAsks } from '../metrics.ts';
import { projectionOf } from '../read/projection.ts';
import { type ReadDeps, type ReadSnapshot, readSnapshot } from '../read/read-snapshot.ts';
import { andVisible } from '../read/retention-cutoff.ts';
import { indexName, isVectorIndex } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';
import type { FilterPasses } from './filter-passes.ts';
import { runSearch, scoreColumnOf } from './lance-search.ts';
import { loopTurns } from './loop-turns.ts';
import { type PendingGroup, pendingGroups } from './pending-groups.ts';
import {
  GENERATION_COLUMN,
  type PendingMember,
  type PendingTable,
  PendingTables,
  ROW_COLUMN,
} from './pending-tables.ts';
import { pendingProbes, probedShare } from './probe-share.ts';
import { SearchBound } from './search-bound.ts';
import type { SearchQuery, SearchRequest } from './search-request.ts';
import type { VectorGraph } from './vector-graph.ts';

export interface SearchDeps extends ReadDeps {
  pendingTables: PendingTables;
  filterPasses: FilterPasses;
}

export interface SearchAnswer {
  /** The rows, best first, in the columns asked for, then `_distance` or `_score` when asked. */
  rows: Table;
  /** A search by filter alone is paged like a scan: the cursor of its next page, or null. */
  next: string | null;
}

interface Candidate {
  batch: RecordBatch;
  row: number;
  score: number;
}

/** The snapshot a search reads: every shard of the table, as reads take it. */
export function searchSnapshot(deps: ReadDeps, table: TableDef, signal?: AbortSignal): Promise<ReadSnapshot> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  return readSnapshot(deps, table, shards, { signal });
}

/** `reading`: the snapshot when the caller began to read it already (searchSnapshot). */
export async function searchRows(
  deps: SearchDeps,
  table: TableDef,
  asked: SearchRequest,
  signal?: AbortSignal,
  reading: Promise<ReadSnapshot> = searchSnapshot(deps, table, signal),
): Promise<SearchAnswer> {
  const projection = projectionOf(table, asked.columns);
  const snapshot = await reading;
  // I10: the base and every pending table are prefiltered on the snapshot's retention cutoff.
  const request = { ...asked, filter: andVisible(table, snapshot.cutoff, asked.filter) };
  const overlay = deps.overlays.of(table, snapshot);
  const columns = projection.read.fields.map((f) => f.name);
  const version = snapshot.base.lanceVersion;
  const handle = version === null ? null : await deps.datasets.at(table, version);
  const share = probedShare(
    await basePartitions(handle, table, request.query),
    request.query.kind === 'vector' ? request.query.nprobes : null,
  );
  if (request.query.kind === 'vector') probedShares.observe(share);
  const graphs = asksGraphs(table, request, share);
  const plan = pendingGroups(
    table,
    snapshot,
    (key) => deps.pendingTables.isBuilt(key),
    (rows) => deps.pendingTables.worthAlone(table, rows, graphs),
  );
  deps.pendingTables.prepare(
    table,
    plan.build.map((group) => ({
      key: group.key,
      members: membersOf(snapshot, group),
      graphed: group.graphed,
    })),
  );
  // Sides 0 … n-1 are the pending groups, side n the base.
  const bound = new SearchBound(request.k, rankedBefore(request.query), plan.search.length + 1);
  const turn = loopTurns();
  const asSide = <T>(index: number, search: () => Promise<T>) => search().finally(() => bound.left(index));
  const [pending, base] = await Promise.all([
    Promise.all(
      plan.search.map((group, index) =>
        asSide(index, () =>
          searchGroup(deps, table, request, columns, snapshot, group, overlay.shadowedRows, share, {
            bound,
            side: index,
            turn: graphs ? turn : null,
          }),
        ),
      ),
    ),
    asSide(plan.search.length, async () =>
      handle === null || version === null
        ? []
        : searchBase(deps, table, { handle, version }, request, columns, overlay.keys, {
            bound,
            side: plan.search.length,
            turn: null,
          }),
    ),
  ]);
  const ranked = rank(request, [...pending.flat(), ...base]).slice(0, request.k);
  return { rows: answer(request, projection.out, ranked), next: null };
}

/** A group of pending runs (pending-groups.ts), searched as one table, the rows newer runs supersede dropped. */
async function searchGroup(
  deps: SearchDeps,
  table: TableDef,
  request: SearchRequest,
  columns: readonly string[],
  snapshot: ReadSnapshot,
  group: PendingGroup,
  shadowedRows: readonly Set<number>[],
  share: number,
  among: Among,
): Promise<Candidate[]> {
  const superseded = group.runs.reduce((sum, r) => sum + shadowedRows[r]!.size, 0);
  const rows = group.runs.reduce((sum, r) => sum + snapshot.runs[r]!.size, 0);
  if (superseded === rows) return [];
  const runOf = new Map(group.runs.map((r) => [snapshot.sources[r]!.generation ?? -1, r]));
  const held = await deps.pendingTables.of(group.key, membersOf(snapshot, group), table);
  try {
    const pendingTable = held.table;
    if (pendingTable === null) return [];
    const { query } = request;
    if (query.kind === 'text') await PendingTables.fts(pendingTable, query.column);
    const read = [...columns, GENERATION_COLUMN, ROW_COLUMN];
    // An index built for another metric would rank by the wrong distance.
    const indexed = pendingTable.vectorIndexes.get(query.kind === 'vector' ? query.column : '');
    const flat = query.kind === 'vector' && indexed !== undefined && indexed.metric !== query.metric;
    // IVF_FLAT's distances are exact: re-ranking them, as the base's refine factor asks for
    // its PQ codes' sake, would only read the rows again.
    const asked =
      query.kind === 'vector' && indexed?.metric === query.metric
        ? {
            ...request,
            query: { ...query, refineFactor: null, nprobes: pendingProbes(share, indexed.partitions) },
          }
        : request;
    const liveIn = liveRows(runOf, shadowedRows);
    const { turn } = among;
    const graphed = turn === null ? null : graphOf(pendingTable, request);
    return await deepen(request.k, { dropped: superseded, rows }, among, async (limit) => {
      if (graphed !== null && turn !== null) {
        searchAsks.inc({ side: 'graph' });
        await turn();
        return askGraph(graphed, liveIn, limit);
      }
      searchAsks.inc({ side: 'pending' });
      const batches = await runSearch(pendingTable.handle, asked, read, limit, { flat });
      return {
        candidates: batches.flatMap((batch) => liveCandidates(batch, scoresOf(request, batch), liveIn)),
        fetched: batches.reduce((sum, b) => sum + b.numRows, 0),
        last: lastOf(request, batches),
      };
    });
  } finally {
    held.release();
  }
}

/**
 * Whether a search asks the pending graphs, where they are built, in place of LanceDB: a
 * vector search by a metric a vector index is declared with on its column (the graphs are
 * built for those), with no filter (a graph knows only vectors), beside a base itself searched
 * by an index (share < 1), so a flat search stays exact.
 */
function asksGraphs(table: TableDef, request: SearchRequest, share: number): boolean {
  const { query } = request;
  return (
    query.kind === 'vector' &&
    request.filter === null &&
    share < 1 &&
    table.indexes.some(
      (d) => isVectorIndex(d) && d.column === query.column && (d.metric ?? 'l2') === query.metric,
    )
  );
}

/** A graph a search asks, the rows it finds read in `rows`. */
interface Graphed {
  graph: VectorGraph;
  rows: RecordBatch;
  vector: Float32Array;
}

/** The graph of a search that asks graphs (asksGraphs), when `table` has one for its column and metric. */
function graphOf(table: PendingTable, request: SearchRequest): Graphed | null {
  const { query } = request;
  if (query.kind !== 'vector' || table.rows === null) return null;
  const graph = table.graphs.get(query.column);
  return graph?.metric === query.metric ? { graph, rows: table.rows, vector: query.vector } : null;
}

/** Which rows of a batch of a pending table are live: not superseded by a newer run. */
type LiveIn = (batch: RecordBatch) => (row: number) => boolean;

function liveRows(runOf: ReadonlyMap<number, number>, shadowedRows: readonly Set<number>[]): LiveIn {
  return (batch) => {
    const generations = batch.getChild(GENERATION_COLUMN)!;
    const indexes = batch.getChild(ROW_COLUMN)!;
    return (row) =>
      !shadowedRows[runOf.get(generations.get(row) as number)!]!.has(indexes.get(row) as number);
  };
}

/**
 * The graph's `limit` nearest rows, the live ones as candidates where the table keeps them:
 * only the k rows of the answer are ever copied (a take per graph asked cost 0.2 ms).
 */
function askGraph(
  { graph, rows, vector }: Graphed,
  liveIn: LiveIn,
  limit: number,
): { candidates: Candidate[]; fetched: number; last: number } {
  const found = graph.search(vector, limit);
  const live = liveIn(rows);
  const candidates: Candidate[] = [];
  found.keys.forEach((key, i) => {
    const row = Number(key);
    if (live(row)) candidates.push({ batch: rows, row, score: found.distances[i]! });
  });
  return { candidates, fetched: found.keys.length, last: found.distances.at(-1) ?? Number.NaN };
}

/** The live rows of a batch of a pending table as candidates, each with its score. */
function liveCandidates(batch: RecordBatch, scores: ArrayLike<number>, liveIn: LiveIn): Candidate[] {
  const live = liveIn(batch);
  const candidates: Candidate[] = [];
  for (let i = 0; i < batch.numRows; i++) {
    if (live(i)) candidates.push({ batch, row: i, score: scores[i]! });
  }
  return candidates;
}

function membersOf(snapshot: ReadSnapshot, group: PendingGroup): PendingMember[] {
  return group.runs.map((r) => ({ run: snapshot.runs[r]!, generation: snapshot.sources[r]!.generation }));
}

async function searchBase(
  deps: SearchDeps,
  table: TableDef,
  { handle, version }: { handle: LanceTable; version: number },
  request: SearchRequest,
  columns: readonly string[],
  shadowedKeys: Set<string>,
  among: Among,
): Promise<Candidate[]> {
  if (request.query.kind === 'text') await assertTextIndex(handle, table, request.query.column);
  const codec = keyCodecFor(table.schema);
  const rows = shadowedKeys.size === 0 ? 0 : await rowsOf(handle);
  const read = await columnsPresent(handle, columns);
  return deepen(request.k, { dropped: shadowedKeys.size, rows }, among, async (limit) => {
    searchAsks.inc({ side: 'base' });
    const batches = await runSearch(handle, request, read, limit).catch(async (err: unknown) => {
      if (request.filter !== null) await assertHasColumns(handle, table);
      throw await deps.datasets.explainReadFailure(table, version, err);
    });
    const candidates: Candidate[] = [];
    let fetched = 0;
    for (const batch of batches) {
      const scores = scoresOf(request, batch);
      fetched += batch.numRows;
      const keys = shadowedKeys.size === 0 ? null : codec.encodeRows(batch);
      for (let i = 0; i < batch.numRows; i++) {
        if (!keys || !shadowedKeys.has(Buffer.from(keys[i]!).toString('hex')))
          candidates.push({ batch, row: i, score: scores[i]! });
      }
    }
    return { candidates, fetched, last: lastOf(request, batches) };
  });
}

/**
 * The partitions of the base's vector index for this query (probe-share.ts): null when the
 * base compares every row (no base yet, no index built, or one built for another metric).
 */
async function basePartitions(
  handle: LanceTable | null,
  table: TableDef,
  query: SearchQuery,
): Promise<number | null> {
  if (query.kind !== 'vector' || handle === null) return null;
  const decl = table.indexes.find((d) => d.column === query.column && isVectorIndex(d));
  if (!decl || (decl.metric ?? 'l2') !== query.metric) return null;
  const name = indexName(decl);
  // Built on the rows it indexed (declared-indexes.ts), whatever was added since.
  return askedOnce(handle, `partitions:${name}`, () =>
    handle.indexStats(name).then((stats) => (stats ? ivfPartitions(decl, stats.numIndexedRows) : null)),
  );
}

function rowsOf(handle: LanceTable): Promise<number> {
  return askedOnce(handle, 'rows', () => handle.countRows());
}

/** What a base version answered, by question, asked once per handle: a version never changes. */
const answers = new WeakMap<object, Map<string, Promise<unknown>>>();

function askedOnce<T>(handle: LanceTable, question: string, ask: () => Promise<T>): Promise<T> {
  const asked = answers.get(handle) ?? new Map<string, Promise<unknown>>();
  answers.set(handle, asked);
  let answer = asked.get(question) as Promise<T> | undefined;
  if (!answer) {
    answer = ask();
    asked.set(question, answer);
    answer.catch(() => asked.delete(question));
  }
  return answer;
}

/**
 * Which side of a search a deepening asks for, what every side has found so far, and the
 * search's turns of the event loop when it asks graphs: each graph is asked in a turn of its
 * own, so the base's LanceDB query, which needs this thread at each of its steps, is not held
 * back until every graph has answered (docs/design.md, "Search", step 2).
 */
interface Among {
  bound: SearchBound;
  side: number;
  turn: (() => Promise<void>) | null;
}

/**
 * A side's best k live rows, when up to `dropped` of its `rows` are not live. It is asked
 * first for what leaves k live rows if its share of dropped rows holds near the top (that
 * share taken as at most a half: the overlay's keys may be new ones the base does not hold),
 * then, while dropping leaves fewer than k, the side had more to give and the other sides do
 * not already hold k rows ranked before its last (search-bound.ts), for at least twice as
 * many, and for what leaves 1.5 k at the live share the last ask saw, up to k + dropped.
 * Its best k live rows are always among what one ask brings back once k remain, so a flat
 * search stays exact. Each row asked for costs the base's index a re-ranked read (about
 * 0.2 ms per unit of limit at refine factor 10): asked for k + dropped at once, an old block
 * fetched thousands of rows, and asked for 16 k when the overlay's keys outnumbered half
 * the base, the base took 35 ms where LanceDB alone took 6.
 */
async function deepen(
  k: number,
  { dropped, rows }: { dropped: number; rows: number },
  { bound, side }: Among,
  ask: (limit: number) => Promise<{ candidates: Candidate[]; fetched: number; last: number }>,
): Promise<Candidate[]> {
  const most = k + dropped;
  const share = Math.min(0.5, dropped / Math.max(1, rows));
  for (let limit = Math.min(most, Math.ceil(k / (1 - share))); ; ) {
    const { candidates, fetched, last } = await ask(limit);
    bound.heard(
      side,
      candidates.map((c) => c.score),
    );
    if (candidates.length >= k || fetched < limit || limit >= most) return candidates;
    if (await bound.covers(last)) return candidates;
    const live = Math.max(1, candidates.length) / fetched;
    limit = Math.min(most, Math.max(2 * limit, Math.ceil((1.5 * k) / live)));
  }
}

/** The score of the row ranked last among those fetched: a side's next ask ranks none before it. */
function lastOf(request: SearchRequest, batches: readonly RecordBatch[]): number {
  const before = rankedBefore(request.query);
  let last = Number.NaN;
  for (const batch of batches) {
    const scores = scoresOf(request, batch);
    for (let i = 0; i < scores.length; i++) {
      if (Number.isNaN(last) || before(last, scores[i]!)) last = scores[i]!;
    }
  }
  return last;
}

async function assertTextIndex(handle: LanceTable, table: TableDef, column: string): Promise<void> {
  const indexes = await handle.listIndices();
  if (indexes.some((index) => index.indexType === 'FTS' && index.columns.includes(column))) return;
  if ((await handle.countRows()) === 0) return;
  throw new SluiceError(
    'INDEX_NOT_BUILT',
    `the full-text index on column "${column}" is not built on the base yet: the next optimize builds it (POST /v1/tables/${table.name}/optimize)`,
    { table: table.name, column },
  );
}

function scoresOf(request: SearchRequest, batch: RecordBatch): ArrayLike<number> {
  const name = scoreColumnOf(request.query);
  if (name === null) return new Float32Array(batch.numRows);
  return batch.getChild(name)!.toArray() as Float32Array;
}

/**
 * Whether score a ranks strictly before b: a nearer distance, a higher text score. A search
 * by filter alone ranks nothing before anything.
 */
function rankedBefore(query: SearchQuery): (a: number, b: number) => boolean {
  if (query.kind === 'vector') return (a, b) => a < b;
  if (query.kind === 'text') return (a, b) => a > b;
  return () => false;
}

/** Nearest first (a distance), or best first (a score). */
function rank(request: SearchRequest, candidates: Candidate[]): Candidate[] {
  const before = rankedBefore(request.query);
  return candidates.sort((a, b) => (before(a.score, b.score) ? -1 : before(b.score, a.score) ? 1 : 0));
}

function answer(request: SearchRequest, out: Schema, ranked: readonly Candidate[]): Table {
  const sources: RecordBatch[] = [];
  const offsets = new Map<RecordBatch, number>();
  let total = 0;
  const indices = ranked.map((c) => {
    let offset = offsets.get(c.batch);
    if (offset === undefined) {
      offset = total;
      offsets.set(c.batch, offset);
      sources.push(conformColumns(out, c.batch));
      total += c.batch.numRows;
    }
    return offset + c.row;
  });
  const rows = sources.length === 0 ? new Table(out) : new Table([takeRows(sources, indices)]);
  const scoreName = scoreColumnOf(request.query);
  if (!request.withScore || scoreName === null) return rows;
  const scores = new Table({
    [scoreName]: vectorFromArray(
      ranked.map((c) => c.score),
      new Float32(),
    ),
  });
  return rows.assign(scores);
}

/**
 * The pending rows a search reads, as LanceDB tables in memory: one per sorted run (a WAL
 * entry or an L0 file, both immutable), or one per block of L0 generations (search.ts),
 * holding the runs' upserts in the table's schema, `_sluice_gen` (the generation, -1 for a
 * WAL entry) and `_sluice_row` (the row's index in its run). A search runs on them the very
 * query it runs on the base, so a filter, a metric and a full-text query mean the same on
 * both sides. Built on first use and kept in an LRU bounded by `searchCacheBytes` (the
 * Arrow bytes). A search holds the tables it reads until it ends: an evicted table is
 * dropped once no search holds it, and a run bigger than the whole budget is built for the
 * searches that ask at once and dropped after them. A full-text index is built on a run's
 * table the first time a search names its column.
 * The groups a search asks for ahead (`prepare`) are built in the background, one at a time,
 * so a search never waits for one; one of `INDEX_ROWS` rows or more then gets an IVF_FLAT
 * index on each declared vector column, built after its table, which is searched flat
 * until it is (below `INDEX_ROWS` a flat search costs about what an indexed one does).
 * IVF_FLAT rather than IVF_PQ or IVF_HNSW_SQ: on 80,000 rows of 128
 * dimensions it builds in seconds where they take minutes, and answers as fast; it keeps a
 * copy of the vectors, so such a table is counted twice against the budget. After it, a job
 * marked `graphed` (a single generation or a closed block, pending-groups.ts) gets a graph
 * of each of those columns (vector-graph.ts), whatever its rows, counted too, which an
 * unfiltered search by its metric asks in place of LanceDB.
 */
import { Float64, Int32, type RecordBatch, Table, vectorFromArray } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { encodeIpcStream } from '../arrow/ipc.ts';
import { concatBatches } from '../arrow/take.ts';
import { type LanceTable, lanceArrowFromIPC, lanceDb } from '../base/lance-module.ts';
import { projectRows, type RowRef } from '../read/project-rows.ts';
import { unexpired } from '../read/retention-cutoff.ts';
import type { SortedRun } from '../read/sorted-run.ts';
import type { Metric } from '../table/index-decl.ts';
import { isVectorIndex } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';
import { type GraphVectors, graphBytes, VectorGraph } from './vector-graph.ts';

export const ROW_COLUMN = '_sluice_row';
export const GENERATION_COLUMN = '_sluice_gen';

/** A run a pending table holds, and its generation (null for a WAL entry). */
export interface PendingMember {
  run: SortedRun;
  generation: number | null;
}

export interface PendingTable {
  handle: LanceTable;
  /** Full-text indexes built, by column. */
  fts: Map<string, Promise<void>>;
  /** Vector indexes built, by column: a search by another metric bypasses them. */
  vectorIndexes: Map<string, { metric: Metric; partitions: number }>;
  /** Graphs built, by column, each for its declaration's metric; keyed by row position in `rows`. */
  graphs: Map<string, VectorGraph>;
  /**
   * The table's rows in Sluice's Arrow, kept when it gets graphs: the rows a graph finds
   * are read here, with no LanceDB query.
   */
  rows: RecordBatch | null;
}

/** A table a search holds; `release` once the search is done with it. */
export interface HeldTable {
  table: PendingTable | null;
  release(): void;
}

/** Rows a search wants read as one table, by their key, and whether it gets graphs (pending-groups.ts). */
export interface PendingJob {
  key: string;
  members: readonly PendingMember[];
  graphed: boolean;
}

interface Built {
  table: PendingTable;
  bytes: number;
  close(): void;
}

interface Entry {
  built: Promise<Built | null>;
  /** Set once `built` settles without failing. */
  done?: Built | null;
  holders: number;
  /** Out of the LRU (or never in it): closed once no search holds it. */
  dropped: boolean;
}

export class PendingTables {
  private readonly lru: LRUCache<string, Entry>;
  /** The jobs waiting, per table: each `prepare` replaces its table's, so none goes stale. */
  private readonly waiting = new Map<string, { def: TableDef; jobs: PendingJob[] }>();
  private building = false;
  constructor(
    private readonly maxBytes: number,
    /** From how many rows a table built in the background gets vector indexes. */
    private readonly indexRows = INDEX_ROWS,
  ) {
    this.lru = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: () => 1,
      dispose: (entry) => this.drop(entry),
    });
  }

  /**
   * The members' upserts as a table in memory (null when they hold only deletes), held until
   * released. `key` names exactly those members: the same key is always the same rows.
   */
  async of(key: string, members: readonly PendingMember[], def: TableDef): Promise<HeldTable> {
    const entry = this.entryOf(key, members, def);
    return this.hold(entry);
  }

  /**
   * Whether a generation of `rows` alone is worth a table built in the background: one that
   * gets a vector index, or a graph that searches like the asker ask (`graphs`). Otherwise it
   * would be the very table a search builds for it on its path.
   */
  worthAlone(def: TableDef, rows: number, graphs: boolean): boolean {
    const { indexed, graphed } = extrasOf(def, rows, { indexRows: this.indexRows, graphed: graphs });
    return indexed || graphed;
  }

  /** Whether `key`'s table is built: a search reads it without waiting. */
  isBuilt(key: string): boolean {
    return this.lru.peek(key)?.done !== undefined;
  }

  /**
   * Builds `jobs` in the background, in order, one at a time, and their vector indexes,
   * in place of any `def`'s table still had waiting; a job bigger than the budget is skipped.
   */
  prepare(def: TableDef, jobs: readonly PendingJob[]): void {
    const fits = jobs.filter((job) => estimatedBytes(job, def, this.shapeOf(job)) <= this.maxBytes);
    if (fits.length === 0) this.waiting.delete(def.name);
    else this.waiting.set(def.name, { def, jobs: [...fits] });
    if (!this.building) void this.buildNext();
  }

  private async buildNext(): Promise<void> {
    const next = this.waiting.entries().next();
    if (next.done) return;
    const [name, { def, jobs }] = next.value;
    const job = jobs.shift()!;
    if (jobs.length === 0) this.waiting.delete(name);
    this.building = true;
    try {
      if (!this.lru.has(job.key)) {
        const entry = this.entryOf(job.key, job.members, def, this.shapeOf(job));
        const held = await this.hold(entry);
        try {
          if (held.table) await this.indexVectors(held.table, def);
          if (held.table) await this.graphVectors(job.key, entry, held.table, def);
        } finally {
          held.release();
        }
      }
    } catch {
      // A failed build is forgotten (entryOf), so the next search that wants it asks again; a
      // table whose index failed is searched flat, one whose graph failed by LanceDB.
    } finally {
      this.building = false;
    }
    return this.buildNext();
  }

  private async indexVectors(table: PendingTable, def: TableDef): Promise<void> {
    const rows = await table.handle.countRows();
    if (rows < this.indexRows) return;
    for (const decl of def.indexes.filter(isVectorIndex)) {
      const metric = decl.metric ?? 'l2';
      const numPartitions = Math.max(1, Math.round(rows / ROWS_PER_PARTITION));
      const config = lanceDb().Index.ivfFlat({ distanceType: metric, numPartitions });
      await table.handle.createIndex(decl.column, { config });
      table.vectorIndexes.set(decl.column, { metric, partitions: numPartitions });
    }
  }

  /**
   * A graph of each declared vector column of a table that keeps its rows, counted against
   * the budget once built; a column whose graph fails is searched by LanceDB, the others by theirs.
   */
  private async graphVectors(key: string, entry: Entry, table: PendingTable, def: TableDef): Promise<void> {
    if (table.rows === null) return;
    for (const decl of def.indexes.filter(isVectorIndex)) {
      const metric = decl.metric ?? 'l2';
      const graph = await VectorGraph.build(vectorsOf(table.rows, decl.column), metric).catch(() => null);
      if (graph === null) continue;
      table.graphs.set(decl.column, graph);
      if (entry.done && this.lru.peek(key) === entry) {
        entry.done.bytes += graph.bytes;
        if (entry.done.bytes > this.maxBytes) this.lru.delete(key);
        else this.lru.set(key, entry, { size: entry.done.bytes });
      }
    }
  }

  private async hold(entry: Entry): Promise<HeldTable> {
    entry.holders++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      entry.holders--;
      if (entry.dropped) this.closeIfFree(entry);
    };
    try {
      return { table: (await entry.built)?.table ?? null, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** `column`'s full-text index on `table`, built once; a build that failed is tried again next time. */
  static fts(table: PendingTable, column: string): Promise<void> {
    let built = table.fts.get(column);
    if (!built) {
      built = table.handle.createIndex(column, { config: lanceDb().Index.fts() });
      table.fts.set(column, built);
      built.catch(() => table.fts.delete(column));
    }
    return built;
  }

  /** What a job's table will hold besides its rows. */
  private shapeOf(job: PendingJob): Shape {
    return { indexRows: this.indexRows, graphed: job.graphed };
  }

  /** `shape`: what the table will hold besides its rows, counted in its bytes. */
  private entryOf(
    source: string,
    members: readonly PendingMember[],
    def: TableDef,
    shape: Shape = { indexRows: Infinity, graphed: false },
  ): Entry {
    const cached = this.lru.get(source);
    if (cached) return cached;
    const entry: Entry = { built: buildTable(members, def, shape), holders: 0, dropped: false };
    // Counted as one byte while it is built, then as its Arrow bytes; a failed build is forgotten.
    this.lru.set(source, entry);
    entry.built.then(
      (built) => {
        entry.done = built;
        const bytes = Math.max(1, built?.bytes ?? 1);
        if (this.lru.get(source) !== entry) return;
        if (bytes > this.maxBytes) this.lru.delete(source);
        else this.lru.set(source, entry, { size: bytes });
      },
      () => {
        if (this.lru.get(source) === entry) this.lru.delete(source);
      },
    );
    return entry;
  }

  private drop(entry: Entry): void {
    entry.dropped = true;
    this.closeIfFree(entry);
  }

  private closeIfFree(entry: Entry): void {
    if (entry.holders > 0) return;
    entry.built.then((built) => built?.close()).catch(() => undefined);
  }
}

export const INDEX_ROWS = 10_000;

/**
 * IVF partitions of a pending table's index: about this many rows each. A search probes the
 * share of them the base's index probes of its own (search.ts, `probedShare`), so a block of
 * 8 generations of 10,000 rows (20 partitions) is read in steps of a twentieth.
 */
const ROWS_PER_PARTITION = 4096;

/**
 * What a table will hold besides its rows: a vector index from `indexRows` rows, and
 * graphs when `graphed`.
 */
interface Shape {
  indexRows: number;
  graphed: boolean;
}

/**
 * The members' Arrow bytes; once more when the table will hold vector indexes (the IVF_FLAT's
 * copy of the vectors), and once more and a graph per vector column when it is graphed (the
 * rows kept for the graphs).
 */
function estimatedBytes(job: PendingJob, def: TableDef, shape: Shape): number {
  let rows = 0;
  let bytes = 0;
  for (const { run } of job.members) {
    rows += run.size;
    for (const batch of run.batches) bytes += batch.data.byteLength;
  }
  const { indexed, graphed } = extrasOf(def, rows, shape);
  const graphs = !graphed
    ? 0
    : def.indexes.filter(isVectorIndex).reduce((sum, decl) => {
        const type = def.schema.fields.find((f) => f.name === decl.column)?.type;
        return sum + (type?.kind === 'vector' ? graphBytes(rows, type.dim) : 0);
      }, 0);
  return (1 + Number(indexed) + Number(graphed)) * bytes + graphs;
}

/**
 * Whether a table of `rows` gets vector indexes (from `indexRows` rows) and graphs (when
 * `graphed`, whatever its rows: a graph answers a few rows as fast as many).
 */
function extrasOf(def: TableDef, rows: number, shape: Shape): { indexed: boolean; graphed: boolean } {
  const vectors = def.indexes.some(isVectorIndex);
  return { indexed: vectors && rows >= shape.indexRows, graphed: vectors && shape.graphed };
}

/** `column`'s vectors in `rows`, keyed by row position; rows whose vector is null are left out. */
function vectorsOf(rows: RecordBatch, column: string): GraphVectors {
  const vectors = rows.getChild(column)!;
  const dim = (vectors.type as { listSize: number }).listSize;
  const keys: bigint[] = [];
  const values = new Float32Array(rows.numRows * dim);
  for (let i = 0; i < rows.numRows; i++) {
    const vector = vectors.get(i) as { toArray(): Float32Array } | null;
    if (vector === null) continue;
    values.set(vector.toArray(), keys.length * dim);
    keys.push(BigInt(i));
  }
  return { dim, values: values.slice(0, keys.length * dim), keys: BigUint64Array.from(keys) };
}

async function buildTable(
  members: readonly PendingMember[],
  def: TableDef,
  shape: Shape,
): Promise<Built | null> {
  const refs: RowRef[] = [];
  const generations: number[] = [];
  const rowIndexes: number[] = [];
  for (const member of members) {
    // Kept across reads, so built without any read's retention cutoff: each read applies its own.
    const run = unexpired(member.run);
    const { generation } = member;
    for (let i = 0; i < run.size; i++) {
      if (run.isDelete(i)) continue;
      refs.push({ batches: run.batches, position: run.position(i) });
      generations.push(generation ?? -1);
      rowIndexes.push(i);
    }
  }
  if (refs.length === 0) return null;
  const rows = projectRows(def, refs);
  const withRow = rows.assign(
    new Table({
      [GENERATION_COLUMN]: vectorFromArray(generations, new Float64()),
      [ROW_COLUMN]: vectorFromArray(rowIndexes, new Int32()),
    }),
  );
  const bytes = encodeIpcStream(withRow);
  const db = await lanceDb().connect('memory://');
  const handle = await db.createTable('run', lanceArrowFromIPC(bytes));
  const { indexed, graphed } = extrasOf(def, refs.length, shape);
  return {
    table: {
      handle,
      fts: new Map(),
      vectorIndexes: new Map(),
      graphs: new Map(),
      rows: graphed ? oneBatch(withRow) : null,
    },
    bytes: (1 + Number(indexed) + Number(graphed)) * bytes.byteLength,
    close: () => {
      handle.close();
      db.dropTable('run')
        .catch(() => undefined)
        .finally(() => db.close());
    },
  };
}

/** `rows` as one batch: a graph's keys are row positions in it. */
function oneBatch(rows: Table): RecordBatch {
  return rows.batches.length === 1 ? rows.batches[0]! : concatBatches(rows);
}

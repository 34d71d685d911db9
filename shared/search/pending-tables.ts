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
 * copy of the vectors, so such a table is counted twice against the budget.
 */
import { Float64, Int32, Table, vectorFromArray } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { encodeIpcStream } from '../arrow/ipc.ts';
import { type LanceTable, lanceArrowFromIPC, lanceDb } from '../base/lance-module.ts';
import { projectRows, type RowRef } from '../read/project-rows.ts';
import { unexpired } from '../read/retention-cutoff.ts';
import type { SortedRun } from '../read/sorted-run.ts';
import type { Metric } from '../table/index-decl.ts';
import { isVectorIndex } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';

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
}

/** A table a search holds; `release` once the search is done with it. */
export interface HeldTable {
  table: PendingTable | null;
  release(): void;
}

/** Rows a search wants read as one table, by their key (pending-groups.ts). */
export interface PendingJob {
  key: string;
  members: readonly PendingMember[];
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

  /** Whether `key`'s table is built: a search reads it without waiting. */
  isBuilt(key: string): boolean {
    return this.lru.peek(key)?.done !== undefined;
  }

  /**
   * Builds `jobs` in the background, in order, one at a time, and their vector indexes,
   * in place of any `def`'s table still had waiting; a job bigger than the budget is skipped.
   */
  prepare(def: TableDef, jobs: readonly PendingJob[]): void {
    const fits = jobs.filter((job) => estimatedBytes(job, def, this.indexRows) <= this.maxBytes);
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
        const held = await this.hold(this.entryOf(job.key, job.members, def, this.indexRows));
        try {
          if (held.table) await this.indexVectors(held.table, def);
        } finally {
          held.release();
        }
      }
    } catch {
      // A failed build is forgotten (entryOf), so the next search that wants it asks again; a
      // table whose index failed is searched flat.
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

  /** `indexRows`: from how many rows the table will get a vector index, counted in its bytes. */
  private entryOf(
    source: string,
    members: readonly PendingMember[],
    def: TableDef,
    indexRows = Infinity,
  ): Entry {
    const cached = this.lru.get(source);
    if (cached) return cached;
    const entry: Entry = { built: buildTable(members, def, indexRows), holders: 0, dropped: false };
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

/** The members' Arrow bytes, twice when the table will hold a vector index (its copy of the vectors). */
function estimatedBytes(job: PendingJob, def: TableDef, indexRows: number): number {
  let rows = 0;
  let bytes = 0;
  for (const { run } of job.members) {
    rows += run.size;
    for (const batch of run.batches) bytes += batch.data.byteLength;
  }
  return indexes(def, rows, indexRows) ? 2 * bytes : bytes;
}

function indexes(def: TableDef, rows: number, indexRows: number): boolean {
  return rows >= indexRows && def.indexes.some(isVectorIndex);
}

async function buildTable(
  members: readonly PendingMember[],
  def: TableDef,
  indexRows: number,
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
  return {
    table: { handle, fts: new Map(), vectorIndexes: new Map() },
    bytes: indexes(def, refs.length, indexRows) ? 2 * bytes.byteLength : bytes.byteLength,
    close: () => {
      handle.close();
      db.dropTable('run')
        .catch(() => undefined)
        .finally(() => db.close());
    },
  };
}

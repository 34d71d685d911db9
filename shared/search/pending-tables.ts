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
 */
import { Float64, Int32, Table, vectorFromArray } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { encodeIpcStream } from '../arrow/ipc.ts';
import { type LanceTable, lanceArrowFromIPC, lanceDb } from '../base/lance-module.ts';
import { projectRows, type RowRef } from '../read/project-rows.ts';
import type { SortedRun } from '../read/sorted-run.ts';
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
}

/** A table a search holds; `release` once the search is done with it. */
export interface HeldTable {
  table: PendingTable | null;
  release(): void;
}

interface Entry {
  built: Promise<{ table: PendingTable; bytes: number; close(): void } | null>;
  holders: number;
  /** Out of the LRU (or never in it): closed once no search holds it. */
  dropped: boolean;
}

export class PendingTables {
  private readonly lru: LRUCache<string, Entry>;
  constructor(private readonly maxBytes: number) {
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
    // The runs' columns are those of the schema version they were read under.
    const entry = this.entryOf(`${key}@v${def.schema.version}`, members, def);
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

  private entryOf(source: string, members: readonly PendingMember[], def: TableDef): Entry {
    const cached = this.lru.get(source);
    if (cached) return cached;
    const entry: Entry = { built: buildTable(members, def), holders: 0, dropped: false };
    // Counted as one byte while it is built, then as its Arrow bytes; a failed build is forgotten.
    this.lru.set(source, entry);
    entry.built.then(
      (built) => {
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

async function buildTable(
  members: readonly PendingMember[],
  def: TableDef,
): Promise<{ table: PendingTable; bytes: number; close(): void } | null> {
  const refs: RowRef[] = [];
  const generations: number[] = [];
  const rowIndexes: number[] = [];
  for (const { run, generation } of members) {
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
    table: { handle, fts: new Map() },
    bytes: bytes.byteLength,
    close: () => {
      handle.close();
      db.dropTable('run')
        .catch(() => undefined)
        .finally(() => db.close());
    },
  };
}

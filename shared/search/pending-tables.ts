/**
 * The pending rows a search reads, as LanceDB tables in memory: one per sorted run (a WAL
 * entry or an L0 file, both immutable), holding the run's upserts in the table's schema and
 * `_sluice_row`, each row's index in the run. A search runs on them the very query it runs
 * on the base, so a filter, a metric and a full-text query mean the same on both sides.
 * Built on a run's first search and kept in an LRU bounded by `searchCacheBytes` (the
 * runs' Arrow bytes); an evicted table is dropped. A full-text index is built on a run's
 * table the first time a search names its column.
 */
import { Int32, Table, vectorFromArray } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { encodeIpcStream } from '../arrow/ipc.ts';
import { type LanceTable, lanceArrowFromIPC, lanceDb } from '../base/lance-module.ts';
import { projectRows, type RowRef } from '../read/project-rows.ts';
import type { SortedRun } from '../read/sorted-run.ts';
import type { TableDef } from '../table/table-def.ts';

export const ROW_COLUMN = '_sluice_row';
/** Longer than any search runs (a request's time budget). */
const CLOSE_AFTER_MS = 60_000;

export interface PendingTable {
  handle: LanceTable;
  /** Full-text indexes built, by column. */
  fts: Map<string, Promise<void>>;
  close(): void;
}

export class PendingTables {
  private readonly lru: LRUCache<string, Promise<PendingTable | null>>;

  constructor(maxBytes: number) {
    this.lru = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: () => 1,
      // A search may still be reading an evicted table: it is dropped a while later.
      dispose: (table) => {
        setTimeout(() => table.then((t) => t?.close()).catch(() => undefined), CLOSE_AFTER_MS).unref();
      },
    });
  }

  /** The run's upserts as a table in memory, or null when the run holds only deletes. */
  of(source: string, run: SortedRun, def: TableDef): Promise<PendingTable | null> {
    const hit = this.lru.get(source);
    if (hit) return hit;
    const built = buildTable(run, def);
    const table = built.then((b) => b?.table ?? null);
    // Counted as one byte while it is built, then as its Arrow bytes; a failed build is forgotten.
    this.lru.set(source, table);
    built.then(
      (b) => {
        if (this.lru.get(source) === table) this.lru.set(source, table, { size: Math.max(1, b?.bytes ?? 1) });
      },
      () => {
        if (this.lru.get(source) === table) this.lru.delete(source);
      },
    );
    return table;
  }

  /** `column`'s full-text index on `table`, built once. */
  static fts(table: PendingTable, column: string): Promise<void> {
    let built = table.fts.get(column);
    if (!built) {
      built = table.handle.createIndex(column, { config: lanceDb().Index.fts() });
      table.fts.set(column, built);
    }
    return built;
  }

  clear(): void {
    this.lru.clear();
  }
}

async function buildTable(
  run: SortedRun,
  def: TableDef,
): Promise<{ table: PendingTable; bytes: number } | null> {
  const refs: RowRef[] = [];
  const rowIndexes: number[] = [];
  for (let i = 0; i < run.size; i++) {
    if (run.isDelete(i)) continue;
    refs.push({ batches: run.batches, position: run.position(i) });
    rowIndexes.push(i);
  }
  if (refs.length === 0) return null;
  const rows = projectRows(def, refs);
  const withRow = rows.assign(new Table({ [ROW_COLUMN]: vectorFromArray(rowIndexes, new Int32()) }));
  const bytes = encodeIpcStream(withRow);
  const db = await lanceDb().connect('memory://');
  const handle = await db.createTable('run', lanceArrowFromIPC(bytes));
  return {
    bytes: bytes.byteLength,
    table: {
      handle,
      fts: new Map(),
      close: () => {
        handle.close();
        db.dropTable('run')
          .catch(() => undefined)
          .finally(() => db.close());
      },
    },
  };
}

/**
 * Table definitions never change once created, so each is read from the store once per
 * process; whether the table was dropped since is asked every time (one Redis read), except
 * by a write, whose WAL allocation refuses a dropped table itself (TableDrops).
 */
import type { TableCatalog } from './catalog.ts';
import type { TableDef } from './table-def.ts';
import { type DroppedTable, notFound, type TableDrops } from './table-drops.ts';

export class TableLookup {
  private readonly tables = new Map<string, Promise<TableDef>>();

  constructor(
    private readonly catalog: TableCatalog,
    private readonly drops: TableDrops,
  ) {}

  async get(name: string): Promise<TableDef> {
    const def = await this.cached(name);
    if (await this.drops.isDropped(def.name)) {
      this.tables.delete(name);
      throw notFound(def.name);
    }
    return def;
  }

  /**
   * `read` of the table, with whether it was dropped asked beside the read instead of before
   * it (one Redis round trip off a lookup's path): a dropped table answers TABLE_NOT_FOUND
   * whatever the read found or failed with.
   */
  async whileLive<T>(name: string, read: (table: TableDef) => Promise<T>): Promise<T> {
    const def = await this.cached(name);
    const [dropped, result] = await Promise.allSettled([this.drops.isDropped(def.name), read(def)]);
    if (dropped.status === 'rejected') throw dropped.reason;
    if (dropped.value) {
      this.tables.delete(name);
      throw notFound(def.name);
    }
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }

  /** The definition a write goes to, without asking about a drop: its allocation does. */
  forWrite(name: string): Promise<TableDef> {
    return this.cached(name);
  }

  /** A write learned from its allocation that `name` was dropped: its definition is not kept. */
  forget(name: string): void {
    this.tables.delete(name);
  }

  /** Drops a table: reads and writes answer TABLE_NOT_FOUND at once; the sampler purges its data after `graceMs`. */
  async drop(name: string, graceMs: number): Promise<DroppedTable> {
    const def = await this.get(name);
    const dropped = await this.drops.drop(def, graceMs);
    this.tables.delete(name);
    return dropped;
  }

  private cached(name: string): Promise<TableDef> {
    const known = this.tables.get(name);
    if (known) return known;
    const loading = this.catalog.get(name);
    this.tables.set(name, loading);
    loading.catch(() => this.tables.delete(name));
    return loading;
  }
}

/**
 * A definition is read from the store once per process and kept; whether the table was
 * dropped since is asked every time (one Redis read), except by a write, whose WAL
 * allocation refuses a dropped table itself (TableDrops). Only the columns of a table change
 * (schema-documents.ts), and only by growing: a process learns of a change when something
 * shows it — an object naming a newer schema version (`SCHEMA_OUTDATED`, `withFreshSchema`),
 * a write the definition it holds refuses (`refresh`), or, for a definition that would take a
 * widened column's values unrefused, the schema mark (`forRows`) — and then reads the
 * definition again (docs/design.md, "Schema evolution").
 */
import { takesWidenedValues } from '../arrow/widening.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { TableCatalog } from './catalog.ts';
import type { SchemaMarks } from './schema-marks.ts';
import type { TableDef } from './table-def.ts';
import { type DroppedTable, notFound, type TableDrops } from './table-drops.ts';

export class TableLookup {
  private readonly tables = new Map<string, Promise<TableDef>>();

  constructor(
    private readonly catalog: TableCatalog,
    private readonly drops: TableDrops,
    private readonly marks: SchemaMarks,
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
    return this.withFreshSchema(name, (def) => this.whileLiveAt(def, read), this.cached(name));
  }

  /**
   * `work` on the live definition held, and once more on the definition read again when the
   * work met an object of a newer schema than that one.
   */
  async withFreshSchema<T>(
    name: string,
    work: (table: TableDef) => Promise<T>,
    held: Promise<TableDef> = this.get(name),
  ): Promise<T> {
    const def = await held;
    try {
      return await work(def);
    } catch (err) {
      if (!isSluiceError(err, 'SCHEMA_OUTDATED')) throw err;
      const fresh = await this.refresh(name, def.schema.version);
      if (fresh.schema.version === def.schema.version) throw outdatedError(fresh, err);
      return work(fresh);
    }
  }

  /**
   * The definition read again from the store, unless one newer than `seen` is held already;
   * concurrent callers share one read.
   */
  async refresh(name: string, seen: number): Promise<TableDef> {
    const held = await this.cached(name);
    if (held.schema.version > seen) return held;
    return this.load(name);
  }

  /**
   * The definition a write's rows are parsed under: `def`, or the definition read again when
   * the schema mark is ahead of it. Only a definition that would take a widened column's
   * values unrefused asks the mark; no other pays a Redis call for it. A mark Redis lost is
   * filled from the store, read after the mark was found missing, so the loss hides no change.
   */
  async forRows(def: TableDef): Promise<TableDef> {
    if (!takesWidenedValues(def.schema)) return def;
    const mark = await this.marks.read(def.name);
    if (mark === null) {
      const fresh = await this.load(def.name);
      await this.marks.raise(def.name, fresh.schema.version);
      return fresh;
    }
    return mark > def.schema.version ? this.refresh(def.name, mark - 1) : def;
  }

  /** The definition a change of its columns made: every later use in this process gets it. */
  replace(def: TableDef): void {
    this.tables.set(def.name, Promise.resolve(def));
  }

  private async whileLiveAt<T>(def: TableDef, read: (table: TableDef) => Promise<T>): Promise<T> {
    const name = def.name;
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
    return this.tables.get(name) ?? this.load(name);
  }

  /** The definition read from the store, kept for every later use in this process. */
  private load(name: string): Promise<TableDef> {
    const loading = this.catalog.get(name);
    this.tables.set(name, loading);
    loading.catch(() => this.tables.delete(name));
    return loading;
  }
}

/** Read again and still older than what an object names: the object is not of this table's history. */
function outdatedError(def: TableDef, cause: unknown): SluiceError {
  return new SluiceError(
    'DATA_CORRUPT',
    `an object of table "${def.name}" names a schema version newer than the table's latest, ${def.schema.version}`,
    { table: def.name, schemaVersion: def.schema.version },
    { cause },
  );
}

/**
 * The table catalog: one `tables/{name}/table.json` per table, in the object store and
 * nowhere else, and beside it the changes of its columns (schema-documents.ts). Create is a
 * put-if-absent, so of two racing creates exactly one wins and the other gets TABLE_EXISTS,
 * with no lock anywhere. Every read of a definition validates it again (I9): a definition
 * that no longer passes is reported, never used.
 */
import type { TableSettings } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import { pageLimit } from '../page-limit.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableConfigKey, tableDroppedKey, tablePrefix, tablesPrefix } from './paths.ts';
import type { SchemaDocuments } from './schema-documents.ts';
import { parseCreateTable, parseStoredTableDef, type TableDef, tableDefToJSON } from './table-def.ts';
import { isTableName } from './table-name.ts';

export interface TablePage {
  items: TableDef[];
  /** Pass as `after` for the next page; null on the last page. */
  next: string | null;
}

export interface ListTablesOptions {
  after?: string | null;
  limit?: number;
  signal?: AbortSignal;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export class TableCatalog {
  constructor(
    private readonly store: ObjectStore,
    private readonly defaults: TableSettings,
    private readonly schemas: SchemaDocuments,
  ) {}

  /** Validates the `POST /v1/tables` body, then stores it; TABLE_EXISTS if the name is taken. */
  async create(input: unknown, options: { now?: Date; signal?: AbortSignal } = {}): Promise<TableDef> {
    const def = parseCreateTable(input, this.defaults, options.now);
    if (await this.isDropped(def.name, options.signal)) {
      throw new SluiceError(
        'TABLE_EXISTS',
        `a table "${def.name}" was dropped, and the name of a dropped table is not used again: choose another name`,
        { table: def.name, dropped: true },
      );
    }
    const body = encoder.encode(`${JSON.stringify(tableDefToJSON(def), null, 2)}\n`);
    try {
      await this.store.putIfAbsent(tableConfigKey(def.name), body, { signal: options.signal });
    } catch (err) {
      if (isSluiceError(err, 'PRECONDITION_FAILED')) {
        throw new SluiceError('TABLE_EXISTS', `table "${def.name}" already exists`, { table: def.name });
      }
      throw err;
    }
    return def;
  }

  /** The validated definition; TABLE_NOT_FOUND, or DATA_CORRUPT if the stored one is invalid. */
  async get(name: string, signal?: AbortSignal): Promise<TableDef> {
    const key = tableConfigKey(name);
    const object = await this.store.get(key, { signal });
    if (!object || (await this.isDropped(name, signal))) {
      throw new SluiceError('TABLE_NOT_FOUND', `table "${name}" does not exist`, { table: name });
    }
    return this.schemas.apply(this.decode(name, key, object.body), signal);
  }

  /** Adds columns to the table (schema-change.ts); answers the definition as it now is. */
  async changeColumns(name: string, input: unknown, signal?: AbortSignal): Promise<TableDef> {
    return this.schemas.change(await this.get(name, signal), input, new Date(), signal);
  }

  /** Dropped tables whose data is still there (table-drops.ts purges it). */
  async listDropped(signal?: AbortSignal): Promise<TableDef[]> {
    const dropped: TableDef[] = [];
    let cursor: string | null = null;
    for (;;) {
      const name = await this.nextTableName(cursor, signal);
      if (name === null) return dropped;
      cursor = name;
      const object = await this.store.get(tableConfigKey(name), { signal });
      if (object && (await this.isDropped(name, signal)))
        dropped.push(this.decode(name, tableConfigKey(name), object.body));
    }
  }

  private async isDropped(name: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.store.get(tableDroppedKey(name), { signal })) !== null;
  }

  /** Tables in key order, at most `limit` (default and maximum MAX_PAGE) per page. */
  async list(options: ListTablesOptions = {}): Promise<TablePage> {
    const { after, signal } = options;
    const limit = pageLimit(options.limit);
    if (after !== undefined && after !== null && !isTableName(after)) {
      throw new SluiceError('INVALID_CURSOR', 'malformed table cursor', { after });
    }
    const items: TableDef[] = [];
    let cursor = after ?? null;
    for (;;) {
      const name = await this.nextTableName(cursor, signal);
      if (name === null) return { items, next: null };
      if (items.length === limit) return { items, next: cursor };
      const object = await this.store.get(tableConfigKey(name), { signal });
      // A prefix without table.json holds no table (the definition is always written first).
      if (object && !(await this.isDropped(name, signal)))
        items.push(await this.schemas.apply(this.decode(name, tableConfigKey(name), object.body), signal));
      cursor = name;
    }
  }

  async listAll(signal?: AbortSignal): Promise<TableDef[]> {
    const all: TableDef[] = [];
    let after: string | null = null;
    do {
      const page: TablePage = await this.list({ after, signal });
      all.push(...page.items);
      after = page.next;
    } while (after !== null);
    return all;
  }

  /**
   * The first table after `after`, by skipping over whole table prefixes: `tables/{name}0`
   * sorts after every key of `tables/{name}/` (`/` < `0`) and before the next table's keys,
   * so listing costs one small request per table, however many objects each one holds.
   */
  private async nextTableName(after: string | null, signal?: AbortSignal): Promise<string | null> {
    const prefix = tablesPrefix();
    let startAfter = after === null ? undefined : `${tablePrefix(after).slice(0, -1)}0`;
    for (;;) {
      let first: string | undefined;
      for await (const page of this.store.list(prefix, { startAfter, pageSize: 1, signal })) {
        first = page[0]?.key;
        if (first !== undefined) break;
      }
      if (first === undefined) return null;
      const slash = first.indexOf('/', prefix.length);
      const name = first.slice(prefix.length, slash);
      if (slash !== -1 && isTableName(name)) return name;
      startAfter = first;
    }
  }

  private decode(name: string, key: string, body: Uint8Array): TableDef {
    let def: TableDef;
    try {
      def = parseStoredTableDef(JSON.parse(decoder.decode(body)), this.defaults);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new SluiceError(
        'DATA_CORRUPT',
        `stored definition of table "${name}" is invalid: ${reason}`,
        { table: name, key, reason, ...(isSluiceError(err) ? { cause: err.toJSON() } : {}) },
        { cause: err },
      );
    }
    if (def.name !== name) {
      throw new SluiceError('DATA_CORRUPT', `stored definition at ${key} names table "${def.name}"`, {
        table: name,
        key,
      });
    }
    return def;
  }
}

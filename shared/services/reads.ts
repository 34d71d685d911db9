/** Reads of a table: lookups of one or several keys, scans, the live row count and its stats. */
import type { Table } from 'apache-arrow';
import { isSluiceError, SluiceError } from '../errors.ts';
import { parseKeyRange } from '../read/key-range.ts';
import { type Lookup, lookupRow, lookupRows } from '../read/point-lookup.ts';
import { countRows, type RowCount } from '../read/row-count.ts';
import { type ScanPage, scanRows } from '../read/scan.ts';
import { type TableStats, tableStats } from '../read/table-stats.ts';
import { scanFilter } from '../search/filtered-scan.ts';
import { type SearchAnswer, searchRows, searchSnapshot } from '../search/search.ts';
import { parseSearch, ranked, type SearchInput } from '../search/search-request.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import type { TableDef } from '../table/table-def.ts';

export interface LookupOptions {
  columns?: readonly string[] | null;
  signal?: AbortSignal;
}

export interface ScanRequest {
  limit: number;
  after?: string | null;
  from?: unknown;
  to?: unknown;
  columns?: readonly string[] | null;
}

export class Reads {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  lookup(tableName: string, key: unknown, options: LookupOptions = {}): Promise<Table | null> {
    return this.#parts.whileLive(tableName, (table) => lookupRow(this.#parts, table, key, options));
  }

  lookupMany(tableName: string, keys: readonly unknown[], options: LookupOptions = {}): Promise<Lookup> {
    return this.#parts.whileLive(tableName, (table) => lookupRows(this.#parts, table, keys, options));
  }

  async scan(tableName: string, options: ScanRequest, signal?: AbortSignal): Promise<ScanPage> {
    const cursorTtlMs = this.#cursorTtlMs();
    const { from, to, ...page } = options;
    return this.#parts.withFreshSchema(tableName, (table) => {
      const range = parseKeyRange(table, { from, to });
      return scanRows(this.#parts, table, { ...page, range, cursorTtlMs }, signal);
    });
  }

  /**
   * Nearest neighbours or full text over the base and every pending row (shared/search/search.ts);
   * a filter alone is a scan of the rows it passes, paged (shared/search/filtered-scan.ts).
   */
  search(tableName: string, input: SearchInput, signal?: AbortSignal): Promise<SearchAnswer> {
    return this.#parts.whileLive(tableName, async (table) => {
      // A nearest-neighbour or full-text search reads its snapshot beside the index
      // declarations and the filter's check, not after them: on S3 each is a round trip.
      const reading = ranked(input) ? searchSnapshot(this.#parts, table, signal) : undefined;
      reading?.catch(() => undefined);
      const declared = await this.#parts.indexDeclarations.all(table, signal);
      const request = parseSearch(table, input, declared);
      if (request.filter !== null) await this.#checkFilter(table, request.filter);
      // Pending blocks are indexed by every declared index, those declared after create too.
      if (request.query.kind !== 'filter') {
        return searchRows(this.#parts, { ...table, indexes: declared }, request, signal, reading);
      }
      const filter = request.filter === null ? undefined : scanFilter(this.#parts, table, request.filter);
      const page = await scanRows(
        this.#parts,
        table,
        {
          limit: request.k,
          after: request.after,
          columns: request.columns,
          cursorTtlMs: this.#cursorTtlMs(),
          filter,
        },
        signal,
      );
      return { rows: page.rows, next: page.next };
    });
  }

  /**
   * A filter the held definition cannot run may name a column another process added: the
   * definition is read again, and a newer one runs the search again (SCHEMA_OUTDATED).
   */
  async #checkFilter(table: TableDef, filter: string): Promise<void> {
    try {
      await this.#parts.filterCheck.check(table, filter);
    } catch (err) {
      if (!isSluiceError(err, 'INVALID_FILTER')) throw err;
      const fresh = await this.#parts.refreshTable(table.name, table.schema.version);
      if (fresh.schema.version === table.schema.version) throw err;
      throw new SluiceError(
        'SCHEMA_OUTDATED',
        `table "${table.name}" is at schema version ${fresh.schema.version} now`,
        { table: table.name, known: table.schema.version, version: fresh.schema.version },
        { cause: err },
      );
    }
  }

  /** A scan cursor lives as long as the GC grace: its pinned versions may go after that. */
  #cursorTtlMs(): number {
    return this.#parts.config.scheduler.gcGraceSeconds * 1000;
  }

  async countRows(tableName: string, signal?: AbortSignal): Promise<RowCount> {
    return this.#parts.withFreshSchema(tableName, (table) => countRows(this.#parts, table, signal));
  }

  /** The stats of a table already described, so a listing reads no definition twice. */
  stats(table: TableDef, signal?: AbortSignal): Promise<TableStats> {
    return tableStats(this.#parts, table, signal);
  }
}

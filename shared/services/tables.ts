/** The tables of the domain: create, describe, list, drop, and the drain flag of one. */
import type { DrainState } from '../scheduler/drain.ts';
import { requestManualWork } from '../scheduler/manual-work.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import type { ListTablesOptions, TablePage } from '../table/catalog.ts';
import type { IndexDecl } from '../table/index-decl.ts';
import type { TableDef } from '../table/table-def.ts';
import type { DroppedTable } from '../table/table-drops.ts';
import type { TableLookup } from '../table/table-lookup.ts';

export class Tables {
  readonly #parts: SluiceParts;
  readonly #lookup: TableLookup;

  constructor(parts: SluiceParts, lookup: TableLookup) {
    this.#parts = parts;
    this.#lookup = lookup;
  }

  create(input: unknown, options: { signal?: AbortSignal } = {}): Promise<TableDef> {
    return this.#parts.catalog.create(input, options);
  }

  describe(name: string): Promise<TableDef> {
    return this.#lookup.get(name);
  }

  /**
   * The table a write goes to, without asking whether it was dropped: the WAL allocation
   * refuses a dropped table itself (TableDrops), so a write makes no Redis call for it.
   */
  /**
   * The definition this process holds, without asking about a drop: to answer rows a read
   * just returned, whose columns are those of the definition it read with (its newest).
   */
  describeHeld(name: string): Promise<TableDef> {
    return this.#lookup.forWrite(name);
  }

  describeForWrite(name: string): Promise<TableDef> {
    return this.#lookup.forWrite(name);
  }

  list(options: ListTablesOptions = {}): Promise<TablePage> {
    return this.#parts.catalog.list(options);
  }

  /** Reads and writes answer TABLE_NOT_FOUND at once; the sampler purges the data after the GC grace. */
  drop(name: string): Promise<DroppedTable> {
    return this.#lookup.drop(name, this.#parts.config.scheduler.gcGraceSeconds * 1000);
  }

  /** `table` as `describe` answered it, so the drop was asked about once. */
  drain(table: TableDef, drain: boolean, signal?: AbortSignal): Promise<DrainState> {
    return this.#parts.drains.setDrain(table, drain, signal);
  }

  /** Every index declared on `table`: at create and since. */
  indexes(table: TableDef, signal?: AbortSignal): Promise<IndexDecl[]> {
    return this.#parts.indexDeclarations.all(table, signal);
  }

  /**
   * Declares an index (INVALID_INDEX, INDEX_EXISTS: nothing changes) and asks the table's merge
   * lane for the optimize that builds it; a drained table builds it once undrained (no job).
   */
  async declareIndex(
    table: TableDef,
    input: unknown,
    signal?: AbortSignal,
  ): Promise<{ index: IndexDecl; jobId: string | null }> {
    const index = await this.#parts.indexDeclarations.declare(table, input, signal);
    if (await this.#parts.drains.isDrained(table.name, signal)) return { index, jobId: null };
    const { jobId } = await requestManualWork(this.#parts, 'optimize', table.name, signal);
    return { index, jobId };
  }

  /**
   * Adds columns (schema-change.ts; INVALID_SCHEMA, INVALID_SCHEMA_CHANGE: nothing changes).
   * Durable before it answers, so from then on a write naming them is taken in every process,
   * which reads the definition again when its own refuses the write. The schema mark is raised
   * before the answer too, also by a retry whose first attempt died before raising it: a
   * widening a process would not notice from the writes it takes reaches it through the mark.
   * The base gets the columns at its next merge, asked for now (unless drained) so that
   * outside readers see them soon.
   */
  async addColumns(
    name: string,
    input: unknown,
    signal?: AbortSignal,
  ): Promise<{ table: TableDef; jobId: string | null }> {
    const before = await this.#lookup.get(name);
    const table = await this.#parts.catalog.changeColumns(name, input, signal);
    this.#lookup.replace(table);
    await this.#parts.schemaMarks.raise(name, table.schema.version);
    if (table.schema.version === before.schema.version || (await this.isDrained(name, signal))) {
      return { table, jobId: null };
    }
    const { jobId } = await requestManualWork(this.#parts, 'merge', name, signal);
    return { table, jobId };
  }

  /**
   * The definition a write's rows are parsed under: `table`, or a newer one when the schema
   * mark says a change `table` would not notice from the rows was made (table-lookup.ts).
   */
  forRows(table: TableDef): Promise<TableDef> {
    return this.#lookup.forRows(table);
  }

  /** The definition read again if the one held is at schema version `seen` or older. */
  refresh(name: string, seen: number): Promise<TableDef> {
    return this.#lookup.refresh(name, seen);
  }

  isDrained(name: string, signal?: AbortSignal): Promise<boolean> {
    return this.#parts.drains.isDrained(name, signal);
  }
}

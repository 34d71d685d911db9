/** Upserts and deletes of a table's rows, each measured by its outcome. */
import type { RecordBatch, Table } from 'apache-arrow';
import { outcomeOf, writeDuration, writeRows } from '../metrics.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import type { TableDef } from '../table/table-def.ts';
import { type AppendResult, appendRows, deleteKeys } from '../wal/append.ts';

export class Writes {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  append(tableName: string, rows: Table | RecordBatch): Promise<AppendResult> {
    return measureWrite('upsert', rows.numRows, async () =>
      appendRows(this.#parts.wal, await this.#writeTarget(tableName, rows.numRows), rows),
    );
  }

  delete(tableName: string, keys: readonly unknown[]): Promise<AppendResult> {
    return measureWrite('delete', keys.length, async () =>
      deleteKeys(this.#parts.wal, await this.#writeTarget(tableName, keys.length), keys),
    );
  }

  /** A write of no rows reaches no allocation, so it asks about the drop here. */
  #writeTarget(name: string, rows: number): Promise<TableDef> {
    return rows === 0 ? this.#parts.table(name) : this.#parts.tableForWrite(name);
  }
}

/** Latency and rows of one upsert or delete request, by its outcome. */
async function measureWrite(
  op: 'upsert' | 'delete',
  rows: number,
  write: () => Promise<AppendResult>,
): Promise<AppendResult> {
  const end = writeDuration.startTimer({ op });
  let outcome = 'ok';
  try {
    return await write();
  } catch (err) {
    outcome = outcomeOf(err);
    throw err;
  } finally {
    end({ outcome });
    writeRows.inc({ op, outcome }, rows);
  }
}

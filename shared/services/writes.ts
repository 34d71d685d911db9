/** Upserts and deletes of a table's rows, each measured by its outcome. */
import type { RecordBatch, Table } from 'apache-arrow';
import { isSluiceError } from '../errors.ts';
import type { SettleNotes } from '../idempotency.ts';
import { outcomeOf, writeDuration, writeRows } from '../metrics.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';
import { type AppendResult, ackOfNotedPut, appendRows, deleteKeys } from '../wal/append.ts';
import { settleNotedPuts } from '../wal/seq-decision.ts';
import type { NotedPut, WalWrite } from '../wal/wal-entry.ts';

export class Writes {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  /** `beforePut`: told of each WAL put before it is made (an idempotent append notes it, I20). */
  append(
    tableName: string,
    rows: Table | RecordBatch,
    beforePut?: WalWrite['beforePut'],
  ): Promise<AppendResult> {
    return measureWrite('upsert', rows.numRows, () =>
      this.#write(tableName, rows.numRows, (def) => appendRows(this.#parts.wal, def, rows, beforePut)),
    );
  }

  /**
   * How a retry under an Idempotency-Key decides its first attempt's noted puts, for the
   * tables that need it: an append retried in full would land twice, an upsert or a delete
   * would change nothing more (I20). Undefined for keyed tables.
   */
  retrySettle(table: TableDef): SettleNotes<AppendResult> | undefined {
    if (!isAppendOnly(table)) return undefined;
    return (notes) => this.settleNoted(table.name, notes);
  }

  /** The ack of the noted put that landed, of an append whose writer went away; null when none did. */
  async settleNoted(tableName: string, notes: NotedPut[]): Promise<AppendResult | null> {
    const { store, config } = this.#parts;
    const landed = await settleNotedPuts(store, tableName, notes, config.wal.putTimeoutMs);
    return landed && ackOfNotedPut(landed);
  }

  delete(tableName: string, keys: readonly unknown[]): Promise<AppendResult> {
    return measureWrite('delete', keys.length, () =>
      this.#write(tableName, keys.length, (def) => deleteKeys(this.#parts.wal, def, keys)),
    );
  }

  /**
   * A write of no rows reaches no allocation, so it asks about the drop first; any other
   * learns of a drop from its allocation, and then the definition this process kept goes too,
   * so later writes to the table make no Redis call for it.
   */
  async #write(
    name: string,
    rows: number,
    write: (def: TableDef) => Promise<AppendResult>,
  ): Promise<AppendResult> {
    const def = await (rows === 0 ? this.#parts.table(name) : this.#parts.tableForWrite(name));
    try {
      return await write(def);
    } catch (err) {
      if (isSluiceError(err, 'TABLE_NOT_FOUND')) this.#parts.forgetTable(name);
      throw err;
    }
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

/**
 * A search's filter, checked before anything is read: Lance runs it on an empty table of
 * the table's schema, in memory, and a filter it cannot run (not SQL, a column the table
 * lacks, a type mismatch) is INVALID_FILTER quoting Lance's reason. Base and pending rows
 * are then filtered by the same Lance, so the check and the search agree.
 */

import { Table } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { toArrowSchema } from '../arrow/schema.ts';
import { type LanceTable, lanceDb, toLanceArrow } from '../base/lance-module.ts';
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';

const SCHEMAS = 64;

export class FilterCheck {
  private readonly empty = new LRUCache<string, Promise<LanceTable>>({
    max: SCHEMAS,
    dispose: (table) => {
      table.then((t) => t.close()).catch(() => undefined);
    },
  });

  async check(table: TableDef, filter: string): Promise<void> {
    const handle = await this.emptyOf(table);
    try {
      await handle.query().where(filter).limit(1).toArray();
    } catch (err) {
      throw new SluiceError('INVALID_FILTER', `the filter is not one Lance can run: ${lanceReason(err)}`, {
        filter: filter.slice(0, 200),
      });
    }
  }

  private emptyOf(table: TableDef): Promise<LanceTable> {
    const key = `${table.name}\n${JSON.stringify(table.schema.fields)}`;
    let handle = this.empty.get(key);
    if (!handle) {
      handle = (async () => {
        const db = await lanceDb().connect('memory://');
        return db.createTable('empty', toLanceArrow(new Table(toArrowSchema(table.schema))));
      })();
      handle.catch(() => this.empty.delete(key));
      this.empty.set(key, handle);
    }
    return handle;
  }
}

/** Lance's own words, without its wrapping and its Rust source locations. */
export function lanceReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const start = message.indexOf('Invalid user input: ');
  const reason = start >= 0 ? message.slice(start + 'Invalid user input: '.length) : message;
  return reason.replace(/,\s*\/\S+\.rs:\d+:\d+[\s\S]*$/, '').slice(0, 500);
}

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
  private readonly empty = new LRUCache<string, Promise<{ handle: LanceTable; close(): void }>>({
    max: SCHEMAS,
    dispose: (table) => {
      table.then((t) => t.close()).catch(() => undefined);
    },
  });

  async check(table: TableDef, filter: string): Promise<void> {
    const { handle } = await this.emptyOf(table);
    try {
      await handle.query().where(filter).limit(1).toArray();
    } catch (err) {
      throw new SluiceError('INVALID_FILTER', `the filter is not one Lance can run: ${lanceReason(err)}`, {
        filter: filter.slice(0, 200),
      });
    }
  }

  private emptyOf(table: TableDef): Promise<{ handle: LanceTable; close(): void }> {
    const key = `${table.name}\n${JSON.stringify(table.schema.fields)}`;
    let empty = this.empty.get(key);
    if (!empty) {
      empty = (async () => {
        const db = await lanceDb().connect('memory://');
        const handle = await db.createTable('empty', toLanceArrow(new Table(toArrowSchema(table.schema))));
        return {
          handle,
          close: () => {
            handle.close();
            db.close();
          },
        };
      })();
      empty.catch(() => this.empty.delete(key));
      this.empty.set(key, empty);
    }
    return empty;
  }
}

/** Lance's own words, without its wrapping and its Rust source locations. */
export function lanceReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const marker = /Invalid user input: |Query Execution error: /.exec(message);
  const reason = marker ? message.slice(marker.index + marker[0].length) : message;
  return reason.replace(/,\s*\/\S+\.rs:\d+:\d+[\s\S]*$/, '').slice(0, 500);
}

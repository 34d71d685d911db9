/**
 * A two-column table (`id` int32 key, `v` utf8) and WAL batches of it, for the tests of
 * run files and sorted runs, which need rows in WAL form and nothing else.
 */
import { type RecordBatch, Table } from 'apache-arrow';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import type { WalRows } from '../../shared/lsm/run-keys.ts';
import { OP_DELETE, OP_UPSERT, toWalBatch } from '../../shared/wal/wal-entry.ts';

export const kvSchema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int32' },
      { name: 'v', type: 'utf8', nullable: true },
    ],
  },
  ['id'],
);

export function upserts(rows: Array<{ id: number; v: string | null }>): RecordBatch {
  return toWalBatch(kvSchema, jsonRowsToRecordBatch(kvSchema, rows), OP_UPSERT);
}

export function deletes(ids: number[]): RecordBatch {
  return toWalBatch(
    kvSchema,
    jsonRowsToRecordBatch(
      kvSchema,
      ids.map((id) => ({ id, v: null })),
    ),
    OP_DELETE,
  );
}

/** WAL entries at seqs 1, 2, …, one per item. */
export function walEntries(items: ReadonlyArray<RecordBatch | Table>): WalRows[] {
  return items.map((item, i) => ({ seq: i + 1, table: 'batches' in item ? item : new Table([item]) }));
}

/**
 * A two-column table (`id` int32 key, `v` utf8) and WAL batches of it, for the tests of
 * run files and sorted runs, which need rows in WAL form and nothing else.
 */
import type { RecordBatch } from 'apache-arrow';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
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

/**
 * A sorted-run file — the format of L0 files: rows sorted by encoded primary key, the last
 * write per key only (a delete stays as a tombstone, so it still hides older values), plus
 * the encoded key itself in `_sluice_key`, which makes a lookup a binary search. An
 * append-only table's run keeps every row under its row id (`run-keys.ts`). The bytes are a
 * pure function of the input entries, so a retried flush rewrites the same artifact (I13).
 */
import { Binary, Field, makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { conformColumns } from '../arrow/conform-columns.ts';
import { keyAt, type PackedKeys } from '../arrow/key-codec.ts';
import { takeRows } from '../arrow/take.ts';
import { OP_COLUMN, OP_DELETE } from '../wal/wal-entry.ts';
import type { RunKeying, WalRows } from './run-keys.ts';

export const KEY_COLUMN = '_sluice_key';

export interface RunFile {
  body: Uint8Array;
  rows: number;
  tombstones: number;
  /** Encoded keys of the first and last row, or null for an empty run. */
  minKey: Uint8Array | null;
  maxKey: Uint8Array | null;
}

/**
 * Builds a run file from WAL entries in age order (oldest first: by seq) under `walSchema`:
 * a column an older entry lacks is null, any column beyond `walSchema` is ignored.
 */
export function buildRunFile(keying: RunKeying, walSchema: Schema, entries: readonly WalRows[]): RunFile {
  const batches = entries.flatMap((e) => e.table.batches).map((b) => conformColumns(walSchema, b));
  const { keys, order } = keying(batches, entries);
  const ops = opsOf(batches);
  const schema = runSchema(walSchema);
  if (order.length === 0) {
    return {
      body: tableToIPC(new Table(schema), 'file'),
      rows: 0,
      tombstones: 0,
      minKey: null,
      maxKey: null,
    };
  }
  const withKey = takeRows(withKeyColumn(schema, batches, keys), order);
  return {
    body: tableToIPC(new Table([withKey]), 'file'),
    rows: withKey.numRows,
    tombstones: order.reduce((sum, i) => sum + (ops[i] === OP_DELETE ? 1 : 0), 0),
    minKey: keyAt(keys, order[0]!).slice(),
    maxKey: keyAt(keys, order.at(-1)!).slice(),
  };
}

/** The `_sluice_op` of every row across `batches`, in order. */
export function opsOf(batches: readonly RecordBatch[]): Int8Array {
  const total = batches.reduce((sum, b) => sum + b.numRows, 0);
  const ops = new Int8Array(total);
  let at = 0;
  for (const batch of batches) {
    const data = batch.getChild(OP_COLUMN)?.data[0];
    if (data) ops.set((data.values as Int8Array).subarray(0, batch.numRows), at);
    at += batch.numRows;
  }
  return ops;
}

export function runSchema(walSchema: Schema): Schema {
  return new Schema([...walSchema.fields, new Field(KEY_COLUMN, new Binary(), false)], walSchema.metadata);
}

/**
 * The batches with their encoded keys as the last column, each a view into the packed
 * keys: Binary offsets may start past zero, and nothing is copied until the rows are taken.
 */
function withKeyColumn(schema: Schema, batches: readonly RecordBatch[], keys: PackedKeys): RecordBatch[] {
  let first = 0;
  return batches.map((batch) => {
    const length = batch.numRows;
    const keyData = makeData({
      type: new Binary(),
      length,
      nullCount: 0,
      valueOffsets: keys.offsets.subarray(first, first + length + 1),
      data: keys.bytes,
    });
    first += length;
    return new RecordBatch(
      schema,
      makeData({
        type: new Struct(schema.fields),
        length,
        nullCount: 0,
        children: [...batch.data.children, keyData],
      }),
    );
  });
}

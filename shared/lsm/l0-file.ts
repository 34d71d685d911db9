/**
 * An L0 file: the rows of one generation sorted by encoded primary key, the last write
 * per key only (a delete stays as a tombstone, so it still hides older values), plus the
 * encoded key itself in `_sluice_key`, which makes a lookup a binary search. The bytes are
 * a pure function of the generation's WAL entries, so a retried flush rewrites the same
 * artifact (I13).
 */
import { Binary, Field, makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { compareBytes } from '../arrow/key-codec.ts';
import type { KeyCodec } from '../arrow/key-codec.ts';
import { takeRows } from '../arrow/take.ts';

export const KEY_COLUMN = '_sluice_key';

export interface L0Build {
  body: Uint8Array;
  rows: number;
}

/** Builds the L0 file from WAL tables in seq order; `walSchema` is the WAL schema of the table. */
export function buildL0File(codec: KeyCodec, walSchema: Schema, tables: Table[]): L0Build {
  const batches = tables.flatMap((t) => t.batches);
  const keys = batches.flatMap((batch) => codec.encodeRows(batch));
  const order = lastWritePerKey(keys);
  const schema = l0Schema(walSchema);
  if (order.length === 0) return { body: tableToIPC(new Table(schema), 'file'), rows: 0 };
  const rows = takeRows(batches, order);
  const withKey = appendKeyColumn(
    schema,
    rows,
    Array.from(order, (i) => keys[i]!),
  );
  return { body: tableToIPC(new Table([withKey]), 'file'), rows: withKey.numRows };
}

export function l0Schema(walSchema: Schema): Schema {
  return new Schema([...walSchema.fields, new Field(KEY_COLUMN, new Binary(), false)], walSchema.metadata);
}

/** Row positions sorted by key; of equal keys only the latest position (the newest write) is kept. */
export function lastWritePerKey(keys: Uint8Array[]): Int32Array {
  const positions = Int32Array.from(keys.keys());
  positions.sort((a, b) => compareBytes(keys[a]!, keys[b]!) || a - b);
  const kept: number[] = [];
  for (let i = 0; i < positions.length; i++) {
    const here = positions[i]!;
    const next = positions[i + 1];
    if (next === undefined || compareBytes(keys[here]!, keys[next]!) !== 0) kept.push(here);
  }
  return Int32Array.from(kept);
}

function appendKeyColumn(schema: Schema, batch: RecordBatch, keys: Uint8Array[]): RecordBatch {
  const offsets = new Int32Array(keys.length + 1);
  let size = 0;
  keys.forEach((key, i) => {
    size += key.length;
    offsets[i + 1] = size;
  });
  const bytes = new Uint8Array(size);
  keys.forEach((key, i) => bytes.set(key, offsets[i]!));
  const keyData = makeData({ type: new Binary(), length: keys.length, nullCount: 0, valueOffsets: offsets, data: bytes });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: keys.length, nullCount: 0, children: [...batch.data.children, keyData] }),
  );
}

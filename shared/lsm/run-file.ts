/**
 * A sorted-run file — the format of L0 files: rows sorted by encoded primary key, the last
 * write per key only (a delete stays as a tombstone, so it still hides older values), plus
 * the encoded key itself in `_sluice_key`, which makes a lookup a binary search. The bytes are a pure
 * function of the input rows, so a retried flush rewrites the same artifact (I13).
 */
import { Binary, Field, makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import type { KeyCodec } from '../arrow/key-codec.ts';
import { compareBytes } from '../arrow/key-codec.ts';
import { selectColumns } from '../arrow/select-columns.ts';
import { takeRows } from '../arrow/take.ts';
import { OP_COLUMN, OP_DELETE } from '../wal/wal-entry.ts';

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
 * Builds a run file from rows in age order (oldest first: WAL entries by seq); any columns
 * beyond `walSchema` are ignored.
 */
export function buildRunFile(codec: KeyCodec, walSchema: Schema, input: Array<Table | RecordBatch>): RunFile {
  const batches = input
    .flatMap((t) => ('batches' in t ? t.batches : [t]))
    .map((b) => selectColumns(walSchema, b));
  const keys = batches.flatMap((batch) => codec.encodeRows(batch));
  const ops = opsOf(batches);
  const order = lastWritePerKey(keys);
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
  const sortedKeys = Array.from(order, (i) => keys[i]!);
  const withKey = appendKeyColumn(schema, takeRows(batches, order), sortedKeys);
  return {
    body: tableToIPC(new Table([withKey]), 'file'),
    rows: withKey.numRows,
    tombstones: order.reduce((sum, i) => sum + (ops[i] === OP_DELETE ? 1 : 0), 0),
    minKey: sortedKeys[0]!,
    maxKey: sortedKeys.at(-1)!,
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

/** Row positions sorted by key; of equal keys only the latest position (the newest write) is kept. */
export function lastWritePerKey(keys: Uint8Array[]): Int32Array {
  const compare = keyComparator(keys);
  const positions = Int32Array.from(keys.keys());
  positions.sort((a, b) => compare(a, b) || a - b);
  const kept: number[] = [];
  for (let i = 0; i < positions.length; i++) {
    const here = positions[i]!;
    const next = positions[i + 1];
    if (next === undefined || compare(here, next) !== 0) kept.push(here);
  }
  return Int32Array.from(kept);
}

/**
 * Compares keys by position, in `compareBytes` order. Eight bytes of every key are read
 * ahead as two big-endian words, from where the keys first differ, so most comparisons end
 * on two numbers. A key too short for them is padded with zero bytes, which can make two
 * words equal but never reverses an order; of two keys equal in their words, the shorter
 * is the smaller when neither goes on past the words, and else their bytes decide.
 */
function keyComparator(keys: readonly Uint8Array[]): (a: number, b: number) => number {
  const from = sharedPrefixLength(keys);
  const covered = from + 8;
  const high = new Uint32Array(keys.length);
  const low = new Uint32Array(keys.length);
  const lengths = new Int32Array(keys.length);
  keys.forEach((key, i) => {
    high[i] = wordAt(key, from);
    low[i] = wordAt(key, from + 4);
    lengths[i] = key.length;
  });
  return (a, b) => {
    const order = high[a]! - high[b]! || low[a]! - low[b]!;
    if (order !== 0) return order;
    const [lengthA, lengthB] = [lengths[a]!, lengths[b]!];
    if (lengthA <= covered && lengthB <= covered) return lengthA - lengthB;
    return compareBytes(keys[a]!, keys[b]!);
  };
}

function wordAt(key: Uint8Array, at: number): number {
  let word = 0;
  for (let i = at; i < at + 4; i++) word = word * 256 + (key[i] ?? 0);
  return word;
}

function sharedPrefixLength(keys: readonly Uint8Array[]): number {
  const first = keys[0];
  if (!first) return 0;
  let shared = first.length;
  for (const key of keys) {
    let i = 0;
    while (i < shared && i < key.length && key[i] === first[i]) i++;
    shared = i;
    if (shared === 0) break;
  }
  return shared;
}

function appendKeyColumn(schema: Schema, batch: RecordBatch, keys: Uint8Array[]): RecordBatch {
  const offsets = new Int32Array(keys.length + 1);
  let size = 0;
  keys.forEach((key, i) => {
    size += key.length;
    offsets[i + 1] = size;
  });
  const bytes = new Uint8Array(size);
  keys.forEach((key, i) => {
    bytes.set(key, offsets[i]!);
  });
  const keyData = makeData({
    type: new Binary(),
    length: keys.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes,
  });
  return new RecordBatch(
    schema,
    makeData({
      type: new Struct(schema.fields),
      length: keys.length,
      nullCount: 0,
      children: [...batch.data.children, keyData],
    }),
  );
}

/**
 * Order-preserving byte encoding of primary keys: for any two keys, comparing their
 * encodings byte by byte (`compareBytes`) orders them exactly as comparing the key tuples
 * column by column. Shard routing hashes these bytes, and flush and merge sort by them,
 * so the encoding is part of the storage format and must never change.
 *
 * Per column, concatenated in primary-key order:
 * - int32: 4 bytes big-endian with the sign bit flipped (negatives sort first);
 * - int64: 8 bytes, the same way;
 * - utf8:  the UTF-8 bytes with every 0x00 written as 0x00 0xFF, then 0x00 0x01. The
 *   terminator sorts below every escaped or plain byte, so a string sorts before any
 *   longer string it is a prefix of, whatever column follows.
 * Strings therefore order by Unicode code point (UTF-8 byte order), not by JavaScript's
 * UTF-16 `<`; the two differ only for characters above U+FFFF against U+E000–U+FFFF.
 */
import { type Data, DataType, type RecordBatch, Table } from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { expectedJson, toInt32, toInt64BigInt, toUtf8String } from './json-scalars.ts';
import { type KeyColumn, keyColumns, type TableSchema } from './schema.ts';

/** int32 → number, int64 → bigint, utf8 → string. */
export type KeyValue = number | bigint | string;

export interface KeyCodec {
  readonly columns: readonly KeyColumn[];
  /** Encodes validated values (see `parse`); int64 also takes a safe-integer number. */
  encode(values: readonly KeyValue[]): Uint8Array;
  decode(bytes: Uint8Array): KeyValue[];
  /**
   * A key as a client gives it (`DELETE …/rows {keys}`, `?key=`): a scalar for a
   * one-column key (or a one-element array), an array in primary-key order otherwise;
   * int64 as a number or a decimal string. Throws INVALID_KEY.
   */
  parse(input: unknown): KeyValue[];
  /** The encoded key of every row, read straight from the Arrow buffers. */
  encodeRows(rows: Table | RecordBatch): Uint8Array[];
  /** The same keys of every row across `rows`, in order, packed into one buffer. */
  encodeRowsPacked(rows: Table | RecordBatch | readonly RecordBatch[]): PackedKeys;
}

/**
 * Encoded keys of consecutive rows in one buffer: key i is `bytes[offsets[i], offsets[i + 1])`,
 * so a batch's keys cost two allocations, not one per row.
 */
export interface PackedKeys {
  readonly count: number;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
}

/** Key i of `keys`, a view into the packed buffer. */
export function keyAt(keys: PackedKeys, i: number): Uint8Array {
  return keys.bytes.subarray(keys.offsets[i]!, keys.offsets[i + 1]!);
}

const SIGN = 0x80000000;
const TWO_32 = 4_294_967_296;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Plain byte order, the order every encoded key is stored and compared in. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Writes `word` big-endian at `pos`; returns the position after it. */
function putWord(buf: Uint8Array, pos: number, word: number): number {
  buf[pos] = word >>> 24;
  buf[pos + 1] = (word >>> 16) & 0xff;
  buf[pos + 2] = (word >>> 8) & 0xff;
  buf[pos + 3] = word & 0xff;
  return pos + 4;
}

function putInt32(buf: Uint8Array, pos: number, value: number): number {
  return putWord(buf, pos, (value ^ SIGN) >>> 0);
}

/** `hi` is the signed upper half, `lo` the unsigned lower half of a two's-complement int64. */
function putInt64Halves(buf: Uint8Array, pos: number, hi: number, lo: number): number {
  return putWord(buf, putWord(buf, pos, (hi ^ SIGN) >>> 0), lo >>> 0);
}

/** Writes the utf8 form of `bytes[start, end)` (escaped, terminated) at `pos`; returns the position after it. */
function putUtf8(buf: Uint8Array, pos: number, bytes: Uint8Array, start: number, end: number): number {
  let at = pos;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    buf[at++] = byte;
    if (byte === 0) buf[at++] = 0xff;
  }
  buf[at] = 0;
  buf[at + 1] = 1;
  return at + 2;
}

class KeyWriter {
  private buf = new Uint8Array(256);
  private pos = 0;

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + extra));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  int32(value: number): void {
    this.ensure(4);
    this.pos = putInt32(this.buf, this.pos, value);
  }

  int64Halves(hi: number, lo: number): void {
    this.ensure(8);
    this.pos = putInt64Halves(this.buf, this.pos, hi, lo);
  }

  int64(value: number | bigint): void {
    if (typeof value === 'number') {
      this.int64Halves(Math.floor(value / TWO_32) | 0, value >>> 0);
    } else {
      this.int64Halves(Number(BigInt.asIntN(32, value >> 32n)), Number(BigInt.asUintN(32, value)));
    }
  }

  utf8(bytes: Uint8Array, start: number, end: number): void {
    this.ensure((end - start) * 2 + 2);
    this.pos = putUtf8(this.buf, this.pos, bytes, start, end);
  }

  take(): Uint8Array {
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    return out;
  }
}

function corrupt(reason: string): SluiceError {
  return new SluiceError('DATA_CORRUPT', `malformed encoded key: ${reason}`, { reason });
}

function decodeKey(columns: readonly KeyColumn[], bytes: Uint8Array): KeyValue[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: KeyValue[] = [];
  let pos = 0;
  for (const column of columns) {
    if (column.kind === 'int32') {
      if (pos + 4 > bytes.length) throw corrupt(`int32 column "${column.name}" truncated`);
      values.push((view.getUint32(pos) ^ SIGN) | 0);
      pos += 4;
    } else if (column.kind === 'int64') {
      if (pos + 8 > bytes.length) throw corrupt(`int64 column "${column.name}" truncated`);
      values.push(BigInt.asIntN(64, view.getBigUint64(pos) ^ (1n << 63n)));
      pos += 8;
    } else {
      const out: number[] = [];
      for (;;) {
        if (pos >= bytes.length) throw corrupt(`utf8 column "${column.name}" unterminated`);
        const byte = bytes[pos++]!;
        if (byte !== 0) {
          out.push(byte);
          continue;
        }
        const next = bytes[pos++];
        if (next === 1) break;
        if (next !== 0xff) throw corrupt(`utf8 column "${column.name}" has a bad escape`);
        out.push(0);
      }
      try {
        values.push(decoder.decode(new Uint8Array(out)));
      } catch (err) {
        throw new SluiceError(
          'DATA_CORRUPT',
          `malformed encoded key: utf8 column "${column.name}"`,
          {},
          {
            cause: err,
          },
        );
      }
    }
  }
  if (pos !== bytes.length) throw corrupt('trailing bytes');
  return values;
}

function parseKey(columns: readonly KeyColumn[], input: unknown): KeyValue[] {
  const names = columns.map((c) => c.name);
  let parts: readonly unknown[];
  if (Array.isArray(input)) {
    parts = input;
  } else if (columns.length === 1) {
    parts = [input];
  } else {
    throw new SluiceError(
      'INVALID_KEY',
      `key must be an array of ${columns.length} values (${names.join(', ')})`,
      { expected: names },
    );
  }
  if (parts.length !== columns.length) {
    throw new SluiceError(
      'INVALID_KEY',
      `key has ${parts.length} values, the primary key has ${columns.length} (${names.join(', ')})`,
      { expected: names, got: parts.length },
    );
  }
  return columns.map((column, index) => {
    const raw = parts[index];
    const value =
      column.kind === 'int32'
        ? toInt32(raw)
        : column.kind === 'int64'
          ? toInt64BigInt(raw)
          : toUtf8String(raw);
    if (value === undefined) {
      const expected = expectedJson({ kind: column.kind });
      throw new SluiceError('INVALID_KEY', `key column "${column.name}": expected ${expected}`, {
        column: column.name,
        expected,
      });
    }
    return value;
  });
}

/**
 * One key column of one batch, encoded for all its rows at once, the rows of the batch
 * being rows `at`… of the whole: first each row's size, then its bytes at its cursor.
 */
interface ColumnPacker {
  addSizes(sizes: Int32Array, at: number): void;
  write(buf: Uint8Array, cursors: Int32Array, at: number): void;
}

/**
 * Arrow JS slices value buffers (and utf8 offsets) when it slices data, so they are
 * indexed by row directly; only bitmaps go by `data.offset`.
 */
function columnPacker(column: KeyColumn, data: Data, rows: number): ColumnPacker {
  const type = data.type as DataType;
  if (column.kind === 'int32' && DataType.isInt(type) && type.bitWidth === 32) {
    const values = data.values as Int32Array;
    return {
      addSizes: (sizes, at) => addToEach(sizes, at, rows, 4),
      write(buf, cursors, at) {
        for (let row = 0; row < rows; row++) {
          cursors[at + row] = putInt32(buf, cursors[at + row]!, values[row]!);
        }
      },
    };
  }
  if (column.kind === 'int64' && DataType.isInt(type) && type.bitWidth === 64) {
    const values = data.values as BigInt64Array;
    const halves = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
    return {
      addSizes: (sizes, at) => addToEach(sizes, at, rows, 8),
      write(buf, cursors, at) {
        for (let row = 0; row < rows; row++) {
          cursors[at + row] = putInt64Halves(buf, cursors[at + row]!, halves[row * 2 + 1]!, halves[row * 2]!);
        }
      },
    };
  }
  if (column.kind === 'utf8' && DataType.isUtf8(type)) {
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    return {
      addSizes(sizes, at) {
        for (let row = 0; row < rows; row++) sizes[at + row]! += offsets[row + 1]! - offsets[row]! + 2;
        // A zero byte takes one escape byte more; zeros are rare, so a native search finds them.
        const from = offsets[0]!;
        const values = bytes.subarray(from, offsets[rows]!);
        let row = 0;
        for (let zero = values.indexOf(0); zero !== -1; zero = values.indexOf(0, zero + 1)) {
          while (offsets[row + 1]! - from <= zero) row++;
          sizes[at + row]!++;
        }
      },
      write(buf, cursors, at) {
        for (let row = 0; row < rows; row++) {
          cursors[at + row] = putUtf8(buf, cursors[at + row]!, bytes, offsets[row]!, offsets[row + 1]!);
        }
      },
    };
  }
  throw new SluiceError('INTERNAL', `key column "${column.name}" has Arrow type ${type}, not ${column.kind}`);
}

function addToEach(sizes: Int32Array, at: number, rows: number, size: number): void {
  for (let row = 0; row < rows; row++) sizes[at + row]! += size;
}

/** Column by column, so each loop runs over one column's buffers, with no call per row. */
function packRows(
  columns: readonly KeyColumn[],
  rows: Table | RecordBatch | readonly RecordBatch[],
): PackedKeys {
  const batches = rows instanceof Table ? rows.batches : Array.isArray(rows) ? rows : [rows];
  const packers: Array<{ at: number; columns: ColumnPacker[] }> = [];
  let count = 0;
  for (const batch of batches) {
    const rowsOfBatch = batch.numRows;
    const of = columns.map((column) => {
      const data = batch.getChild(column.name)?.data[0];
      if (!data) throw new SluiceError('INTERNAL', `rows have no key column "${column.name}"`);
      return columnPacker(column, data, rowsOfBatch);
    });
    packers.push({ at: count, columns: of });
    count += rowsOfBatch;
  }
  const offsets = new Int32Array(count + 1);
  const sizes = offsets.subarray(1);
  for (const { at, columns: of } of packers) for (const packer of of) packer.addSizes(sizes, at);
  for (let i = 0; i < count; i++) offsets[i + 1]! += offsets[i]!;
  const bytes = new Uint8Array(offsets[count]!);
  const cursors = offsets.slice(0, count);
  for (const { at, columns: of } of packers) for (const packer of of) packer.write(bytes, cursors, at);
  return { count, bytes, offsets };
}

export function keyCodecFor(schema: TableSchema): KeyCodec {
  const columns = keyColumns(schema);
  const writer = new KeyWriter();
  return {
    columns,
    encode(values) {
      columns.forEach((column, index) => {
        const value = values[index];
        if (column.kind === 'int32' && typeof value === 'number') writer.int32(value);
        else if (column.kind === 'int64' && (typeof value === 'bigint' || typeof value === 'number'))
          writer.int64(value);
        else if (column.kind === 'utf8' && typeof value === 'string') {
          const bytes = encoder.encode(value);
          writer.utf8(bytes, 0, bytes.length);
        } else {
          writer.take();
          throw new SluiceError('INVALID_KEY', `key column "${column.name}": expected ${column.kind}`, {
            column: column.name,
            expected: column.kind,
          });
        }
      });
      return writer.take();
    },
    decode: (bytes) => decodeKey(columns, bytes),
    parse: (input) => parseKey(columns, input),
    encodeRows(rows) {
      const packed = packRows(columns, rows);
      return Array.from({ length: packed.count }, (_, i) => keyAt(packed, i));
    },
    encodeRowsPacked: (rows) => packRows(columns, rows),
  };
}

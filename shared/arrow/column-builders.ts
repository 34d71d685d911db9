/**
 * One builder per column type: takes the column's JSON values one row at a time and
 * hands back Arrow `Data` built straight from typed arrays, validity bitmaps and utf8
 * offsets. Classes rather than closures, so V8 sees the same few call targets on every
 * request and keeps the conversion loop optimized.
 */
import {
  type Binary,
  type Bool,
  BufferType,
  Data,
  type DataType,
  type FixedSizeList,
  Float32,
  makeData,
  type Utf8,
} from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import type { ColumnType } from './column-type.ts';
import {
  base64DecodedLength,
  FLOAT32_MAX,
  toFloat32,
  toFloat64,
  toInt32,
  toInt64,
  toTimestamp,
  toUtf8String,
} from './json-scalars.ts';

const TWO_32 = 4_294_967_296;
const MAX_OFFSET = 2_147_483_647;

export abstract class ColumnBuilder {
  protected nullCount = 0;
  protected nullBitmap: Uint8Array | undefined;

  constructor(readonly length: number) {}

  /** Stores a non-null JSON value; false when the value does not fit the column type. */
  abstract set(row: number, value: unknown): boolean;

  /** `type` is the column's Arrow type from the table's Arrow schema. */
  abstract finish(type: DataType): Data;

  setNull(row: number): void {
    this.nullBitmap ??= new Uint8Array((this.length + 7) >> 3).fill(0xff);
    this.nullBitmap[row >> 3]! &= ~(1 << (row & 7));
    this.nullCount++;
  }

  protected fixed(type: DataType, values: ArrayBufferView): Data {
    return new Data(type, 0, this.length, this.nullCount, {
      [BufferType.DATA]: values,
      [BufferType.VALIDITY]: this.nullBitmap,
    });
  }
}

class Int32Builder extends ColumnBuilder {
  private readonly values = new Int32Array(this.length);
  set(row: number, value: unknown): boolean {
    const parsed = toInt32(value);
    if (parsed === undefined) return false;
    this.values[row] = parsed;
    return true;
  }
  finish(type: DataType): Data {
    return this.fixed(type, this.values);
  }
}

class FloatBuilder extends ColumnBuilder {
  private readonly values: Float32Array | Float64Array;
  constructor(
    length: number,
    private readonly single: boolean,
  ) {
    super(length);
    this.values = single ? new Float32Array(length) : new Float64Array(length);
  }
  set(row: number, value: unknown): boolean {
    const parsed = this.single ? toFloat32(value) : toFloat64(value);
    if (parsed === undefined) return false;
    this.values[row] = parsed;
    return true;
  }
  finish(type: DataType): Data {
    return this.fixed(type, this.values);
  }
}

/** int64 and timestamps; safe integers go in as two 32-bit halves, no BigInt per value. */
class Int64Builder extends ColumnBuilder {
  private readonly values = new BigInt64Array(this.length);
  private readonly halves = new Int32Array(this.values.buffer);
  constructor(
    length: number,
    private readonly parse: (value: unknown) => number | bigint | undefined,
  ) {
    super(length);
  }
  set(row: number, value: unknown): boolean {
    const parsed = this.parse(value);
    if (parsed === undefined) return false;
    if (typeof parsed === 'bigint') {
      this.values[row] = parsed;
    } else {
      this.halves[row * 2] = parsed | 0;
      this.halves[row * 2 + 1] = Math.floor(parsed / TWO_32);
    }
    return true;
  }
  finish(type: DataType): Data {
    return this.fixed(type, this.values);
  }
}

class BoolBuilder extends ColumnBuilder {
  private readonly bits = new Uint8Array((this.length + 7) >> 3);
  set(row: number, value: unknown): boolean {
    if (typeof value !== 'boolean') return false;
    if (value) this.bits[row >> 3]! |= 1 << (row & 7);
    return true;
  }
  finish(type: DataType): Data {
    return makeData({
      type: type as Bool,
      length: this.length,
      data: this.bits,
      nullCount: this.nullCount,
      nullBitmap: this.nullBitmap,
    });
  }
}

class Utf8Builder extends ColumnBuilder {
  private readonly strings: string[] = new Array(this.length).fill('');
  private chars = 0;
  set(row: number, value: unknown): boolean {
    const parsed = toUtf8String(value);
    if (parsed === undefined) return false;
    this.strings[row] = parsed;
    this.chars += parsed.length;
    return true;
  }
  finish(type: DataType): Data {
    const offsets = new Int32Array(this.length + 1);
    const data =
      asciiBytes(this.strings, this.chars, offsets) ?? utf8Bytes(this.strings, this.chars, offsets);
    return makeData({
      type: type as Utf8,
      length: this.length,
      valueOffsets: offsets,
      data,
      nullCount: this.nullCount,
      nullBitmap: this.nullBitmap,
    });
  }
}

function tooLarge(): SluiceError {
  return new SluiceError('PAYLOAD_TOO_LARGE', 'a column holds over 2 GiB of bytes in one request');
}

/** All-ASCII columns (the common case) encode in one call: byte offsets equal UTF-16 offsets. */
function asciiBytes(strings: readonly string[], chars: number, offsets: Int32Array): Uint8Array | undefined {
  if (chars > MAX_OFFSET) throw tooLarge();
  const bytes = Buffer.from(strings.join(''), 'utf8');
  if (bytes.length !== chars) return undefined;
  let pos = 0;
  for (let row = 0; row < strings.length; row++) {
    pos += strings[row]!.length;
    offsets[row + 1] = pos;
  }
  return bytes;
}

function utf8Bytes(strings: readonly string[], chars: number, offsets: Int32Array): Uint8Array {
  const encoder = new TextEncoder();
  let data = new Uint8Array(chars * 2 + 64);
  let pos = 0;
  for (let row = 0; row < strings.length; row++) {
    let rest = strings[row]!;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, data.subarray(pos));
      pos += written;
      if (read === rest.length) break;
      rest = rest.slice(read);
      const grown = new Uint8Array(Math.max(data.length * 2, pos + rest.length * 3));
      grown.set(data.subarray(0, pos));
      data = grown;
    }
    if (pos > MAX_OFFSET) throw tooLarge();
    offsets[row + 1] = pos;
  }
  return data.subarray(0, pos);
}

class BinaryBuilder extends ColumnBuilder {
  private readonly strings: string[] = new Array(this.length).fill('');
  private readonly sizes = new Int32Array(this.length);
  set(row: number, value: unknown): boolean {
    const size = base64DecodedLength(value);
    if (size === undefined) return false;
    this.strings[row] = value as string;
    this.sizes[row] = size;
    return true;
  }
  finish(type: DataType): Data {
    const offsets = new Int32Array(this.length + 1);
    let total = 0;
    for (let row = 0; row < this.length; row++) {
      total += this.sizes[row]!;
      if (total > MAX_OFFSET) throw tooLarge();
      offsets[row + 1] = total;
    }
    const data = Buffer.alloc(total);
    for (let row = 0; row < this.length; row++) {
      if (this.sizes[row]! > 0) data.write(this.strings[row]!, offsets[row]!, this.sizes[row]!, 'base64');
    }
    return makeData({
      type: type as Binary,
      length: this.length,
      valueOffsets: offsets,
      data,
      nullCount: this.nullCount,
      nullBitmap: this.nullBitmap,
    });
  }
}

class VectorBuilder extends ColumnBuilder {
  private readonly values: Float32Array;
  constructor(
    length: number,
    private readonly dim: number,
  ) {
    super(length);
    this.values = new Float32Array(length * dim);
  }
  set(row: number, value: unknown): boolean {
    const { dim, values } = this;
    if (!Array.isArray(value) || value.length !== dim) return false;
    const base = row * dim;
    for (let i = 0; i < dim; i++) {
      const element: unknown = value[i];
      if (typeof element === 'number' && element <= FLOAT32_MAX && element >= -FLOAT32_MAX) {
        values[base + i] = element;
        continue;
      }
      const parsed = toFloat32(element);
      if (parsed === undefined) return false;
      values[base + i] = parsed;
    }
    return true;
  }
  finish(type: DataType): Data {
    const child = makeData({ type: new Float32(), length: this.values.length, data: this.values });
    return makeData({
      type: type as FixedSizeList<Float32>,
      length: this.length,
      child,
      nullCount: this.nullCount,
      nullBitmap: this.nullBitmap,
    });
  }
}

export function columnBuilder(type: ColumnType, length: number): ColumnBuilder {
  switch (type.kind) {
    case 'int32':
      return new Int32Builder(length);
    case 'int64':
      return new Int64Builder(length, toInt64);
    case 'float32':
      return new FloatBuilder(length, true);
    case 'float64':
      return new FloatBuilder(length, false);
    case 'bool':
      return new BoolBuilder(length);
    case 'utf8':
      return new Utf8Builder(length);
    case 'binary':
      return new BinaryBuilder(length);
    case 'timestamp': {
      const { unit } = type;
      return new Int64Builder(length, (value) => toTimestamp(value, unit));
    }
    case 'vector':
      return new VectorBuilder(length, type.dim);
  }
}

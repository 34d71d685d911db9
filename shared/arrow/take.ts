/**
 * Gather ("take") for Arrow JS, which has no compute kernels: build one RecordBatch whose
 * row i is row `indices[i]` of the source. Splitting a batch by shard and building a
 * sorted, deduplicated L0 file both run through here, so every column type is copied
 * straight between buffers; no value is boxed.
 *
 * Arrow JS buffer conventions this relies on (apache-arrow 21, `Data.slice`):
 * - fixed-width values, FixedSizeList children and Utf8/Binary offsets are already
 *   positioned at the Data's row 0 (a slice narrows them with `subarray`);
 * - validity bits and Bool value bits are NOT narrowed: row r is bit `data.offset + r`;
 * - Utf8/Binary value bytes are NOT narrowed: the offsets index into the whole buffer.
 */
import {
  type Data,
  DataType,
  type Field,
  type FixedSizeList,
  makeData,
  Precision,
  RecordBatch,
  type Schema,
  Struct,
  type Table,
  Type,
  util,
} from 'apache-arrow';
import { SluiceError } from '../errors.ts';

export type TakeSource = Table | RecordBatch[];

/**
 * Row i of the result is row `indices[i]` of `source`, rows numbered across batches in
 * order. Indices may repeat and come in any order. The result has the source's schema.
 */
export function takeRows(source: TakeSource, indices: Int32Array | number[]): RecordBatch {
  const { schema, batches } = unpack(source);
  const plan = planGather(
    batches.map((b) => b.numRows),
    indices,
  );
  const children = schema.fields.map((field, c) =>
    takeColumn(
      field,
      batches.map((b) => b.data.children[c]!),
      plan,
    ),
  );
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: plan.length, nullCount: 0, children }),
  );
}

/** All rows of `source`, in order, as one RecordBatch. */
export function concatBatches(source: TakeSource): RecordBatch {
  const { batches } = unpack(source);
  let total = 0;
  for (const b of batches) total += b.numRows;
  const identity = new Int32Array(total);
  for (let i = 0; i < total; i++) identity[i] = i;
  return takeRows(source, identity);
}

function unpack(source: TakeSource): { schema: Schema; batches: readonly RecordBatch[] } {
  let schema: Schema;
  let batches: readonly RecordBatch[];
  if (Array.isArray(source)) {
    const first = source[0];
    if (!first) throw new SluiceError('INTERNAL', 'takeRows: an empty batch list has no schema');
    schema = first.schema;
    batches = source;
  } else {
    schema = source.schema;
    batches = source.batches;
  }
  const names = new Set<string>();
  for (const field of schema.fields) {
    // new RecordBatch() rebuilds its schema with Schema.assign, which merges fields by name.
    if (names.has(field.name)) {
      throw new SluiceError('INTERNAL', `takeRows: duplicate column name "${field.name}"`, {
        column: field.name,
      });
    }
    names.add(field.name);
  }
  for (const [b, batch] of batches.entries()) {
    const columns = batch.data.children;
    if (columns.length !== schema.fields.length) {
      throw new SluiceError(
        'INTERNAL',
        `takeRows: batch ${b} has ${columns.length} columns, expected ${schema.fields.length}`,
      );
    }
    for (const [c, field] of schema.fields.entries()) {
      const type = columns[c]!.type;
      if (type !== field.type && !util.compareTypes(type, field.type)) {
        throw new SluiceError(
          'INTERNAL',
          `takeRows: column "${field.name}" of batch ${b} is ${String(type)}, expected ${String(field.type)}`,
          { column: field.name, batch: b },
        );
      }
    }
  }
  return { schema, batches };
}

/**
 * Output rows grouped into runs that read from one batch: run k covers output rows
 * [runEnd[k-1], runEnd[k]) from batch runBatch[k]; `rows` holds the row within that batch.
 * Kernels pick the batch's buffers once per run, so a single-batch source is one tight loop.
 */
interface GatherPlan {
  readonly length: number;
  readonly rows: Int32Array;
  readonly runBatch: Int32Array;
  readonly runEnd: Int32Array;
}

function planGather(batchLengths: readonly number[], indices: Int32Array | number[]): GatherPlan {
  const n = indices.length;
  const starts = new Float64Array(batchLengths.length + 1);
  for (const [b, len] of batchLengths.entries()) starts[b + 1] = starts[b]! + len;
  const total = starts[batchLengths.length]!;
  const rows = new Int32Array(n);
  const runBatch: number[] = [];
  const runEnd: number[] = [];
  let batch = -1;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    const g = indices[i]!;
    if (!(g >= lo && g < hi) || (g | 0) !== g) {
      if (!(g >= 0 && g < total) || (g | 0) !== g) {
        throw new SluiceError(
          'INTERNAL',
          `takeRows: index ${g} at position ${i} is not a row of [0, ${total})`,
          {
            index: g,
            position: i,
            rows: total,
          },
        );
      }
      const next = batchOf(starts, g);
      if (batch !== -1) {
        runBatch.push(batch);
        runEnd.push(i);
      }
      batch = next;
      lo = starts[next]!;
      hi = starts[next + 1]!;
    }
    rows[i] = g - lo;
  }
  if (n > 0) {
    runBatch.push(batch);
    runEnd.push(n);
  }
  return { length: n, rows, runBatch: Int32Array.from(runBatch), runEnd: Int32Array.from(runEnd) };
}

/** The last batch starting at or before row g; empty batches before it are skipped. */
function batchOf(starts: Float64Array, g: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= g) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function unsupported(field: Field, type: DataType): SluiceError {
  return new SluiceError(
    'INTERNAL',
    `takeRows: column "${field.name}" has type ${String(type)}, which takeRows does not support`,
    { column: field.name, type: String(type) },
  );
}

function takeColumn(field: Field, datas: readonly Data[], plan: GatherPlan): Data {
  const type = field.type as DataType;
  const validity = gatherValidity(datas, plan, 1);
  const length = plan.length;
  switch (type.typeId) {
    case Type.Bool: {
      const values = gatherBits(
        datas.map((d) => d.values as Uint8Array),
        datas.map((d) => d.offset),
        plan,
        1,
      ).bits;
      return build({ type, length, data: values, ...validity });
    }
    case Type.Utf8:
    case Type.Binary: {
      const { valueOffsets, data } = gatherVariableWidth(datas, plan);
      return build({ type, length, valueOffsets, data, ...validity });
    }
    case Type.FixedSizeList: {
      const childField = type.children[0] as Field;
      const childType = childField.type as DataType;
      const width = byteWidthOf(childType);
      if (width === undefined) throw unsupported(field, type);
      const listSize = (type as FixedSizeList).listSize;
      const childDatas = datas.map((d) => d.children[0]!);
      const child = build({
        type: childType,
        length: length * listSize,
        data: gatherFixedWidth(childDatas, plan, width, listSize),
        ...gatherValidity(childDatas, plan, listSize),
      });
      return build({ type, length, child, ...validity });
    }
    default: {
      const width = byteWidthOf(type);
      if (width === undefined) throw unsupported(field, type);
      return build({ type, length, data: gatherFixedWidth(datas, plan, width, 1), ...validity });
    }
  }
}

/** makeData's typings want the concrete DataType subclass; here it is only known at run time. */
function build(props: {
  type: DataType;
  length: number;
  nullCount: number;
  nullBitmap?: Uint8Array;
  data?: Uint8Array;
  valueOffsets?: Int32Array;
  child?: Data;
}): Data {
  return makeData(props as Parameters<typeof makeData>[0]);
}

/** Bytes per value of the fixed-width types takeRows copies; undefined for any other type. */
function byteWidthOf(type: DataType): number | undefined {
  if (DataType.isInt(type)) return type.bitWidth / 8;
  if (DataType.isFloat(type)) {
    return type.precision === Precision.HALF ? 2 : type.precision === Precision.SINGLE ? 4 : 8;
  }
  if (DataType.isTimestamp(type)) return 8;
  return undefined;
}

type Words = Uint8Array | Uint16Array | Int32Array | BigInt64Array;

/**
 * Copies rows as whole 8-, 4-, 2- or 1-byte words, whatever view Arrow holds the values in:
 * bit-exact (never through a float, whose NaN payloads an engine may rewrite), and as wide
 * as the row size and the buffers' alignment allow. V8 copies BigInt64Array elements
 * without allocating, about twice as fast as the same bytes as Int32Array pairs.
 */
function gatherFixedWidth(
  datas: readonly Data[],
  plan: GatherPlan,
  byteWidth: number,
  perRow: number,
): Uint8Array {
  const rowBytes = byteWidth * perRow;
  const views = datas.map((d) => d.values as ArrayBufferView | undefined);
  let unit = 8;
  while (
    unit > 1 &&
    (rowBytes % unit !== 0 || views.some((v) => v !== undefined && v.byteOffset % unit !== 0))
  ) {
    unit >>= 1;
  }
  const width = rowBytes / unit;
  const out = new ArrayBuffer(plan.length * rowBytes);
  switch (unit) {
    case 8:
      gatherWords(
        new BigInt64Array(out),
        views.map((v) => words(v, 8) as BigInt64Array),
        width,
        plan,
      );
      break;
    case 4:
      gatherWords(
        new Int32Array(out),
        views.map((v) => words(v, 4) as Int32Array),
        width,
        plan,
      );
      break;
    case 2:
      gatherWords(
        new Uint16Array(out),
        views.map((v) => words(v, 2) as Uint16Array),
        width,
        plan,
      );
      break;
    default:
      gatherWords(
        new Uint8Array(out),
        views.map((v) => words(v, 1) as Uint8Array),
        width,
        plan,
      );
  }
  return new Uint8Array(out);
}

/** The same bytes as `unit`-byte words; `unit` divides the view's byte offset. */
function words(view: ArrayBufferView | undefined, unit: 1 | 2 | 4 | 8): Words {
  const buffer = view?.buffer ?? new ArrayBuffer(0);
  const byteOffset = view?.byteOffset ?? 0;
  const count = Math.floor((view?.byteLength ?? 0) / unit);
  switch (unit) {
    case 8:
      return new BigInt64Array(buffer, byteOffset, count);
    case 4:
      return new Int32Array(buffer, byteOffset, count);
    case 2:
      return new Uint16Array(buffer, byteOffset, count);
    default:
      return new Uint8Array(buffer, byteOffset, count);
  }
}

/** From this many words on, one `set` of a subarray beats an element loop. */
const BLOCK_COPY_WORDS = 64;

/** What gatherWords needs of a typed array whose elements are T. */
interface WordArray<T> extends ArrayLike<T> {
  [index: number]: T;
  set(source: ArrayLike<T>, offset?: number): void;
  subarray(begin: number, end: number): ArrayLike<T>;
}

/**
 * Output rows that read consecutive source rows read one range of words: sorted input
 * gathers long such stretches, a shuffle stretches of one row.
 */
function gatherWords<T>(
  out: WordArray<T>,
  srcs: readonly WordArray<T>[],
  width: number,
  plan: GatherPlan,
): void {
  const { rows, runBatch, runEnd } = plan;
  let i = 0;
  for (let k = 0; k < runBatch.length; k++) {
    const src = srcs[runBatch[k]!]!;
    const end = runEnd[k]!;
    while (i < end) {
      const first = rows[i]!;
      let next = i + 1;
      while (next < end && rows[next] === first + (next - i)) next++;
      const s = first * width;
      const d = i * width;
      const words = (next - i) * width;
      if (words >= BLOCK_COPY_WORDS) out.set(src.subarray(s, s + words), d);
      else for (let j = 0; j < words; j++) out[d + j] = src[s + j]!;
      i = next;
    }
  }
}

/**
 * Gathers bits: output bit `i * perRow + j` is source bit `offset + row * perRow + j`. A
 * null source bitmap reads as all ones. Returns the bitmap and how many bits are set.
 */
function gatherBits(
  srcs: readonly (Uint8Array | null)[],
  offsets: readonly number[],
  plan: GatherPlan,
  perRow: number,
): { bits: Uint8Array; set: number } {
  const { rows, runBatch, runEnd } = plan;
  const bits = new Uint8Array((plan.length * perRow + 7) >> 3);
  let set = 0;
  let start = 0;
  for (let k = 0; k < runBatch.length; k++) {
    const b = runBatch[k]!;
    const src = srcs[b]!;
    const offset = offsets[b]!;
    const end = runEnd[k]!;
    for (let i = start; i < end; i++) {
      const s0 = offset + rows[i]! * perRow;
      const d0 = i * perRow;
      for (let j = 0; j < perRow; j++) {
        const s = s0 + j;
        const bit = src === null ? 1 : (src[s >> 3]! >> (s & 7)) & 1;
        const d = d0 + j;
        bits[d >> 3]! |= bit << (d & 7);
        set += bit;
      }
    }
    start = end;
  }
  return { bits, set };
}

/**
 * The validity of the gathered rows (`perRow` slots per output row, for list children):
 * no bitmap unless some source has nulls, and none either when no gathered slot is null.
 */
function gatherValidity(
  datas: readonly Data[],
  plan: GatherPlan,
  perRow: number,
): { nullCount: number; nullBitmap?: Uint8Array } {
  const srcs = datas.map((d) => (d.nullCount > 0 && d.nullBitmap ? d.nullBitmap : null));
  if (srcs.every((s) => s === null)) return { nullCount: 0 };
  const slots = plan.length * perRow;
  const { bits, set } = gatherBits(
    srcs,
    datas.map((d) => d.offset),
    plan,
    perRow,
  );
  return set === slots ? { nullCount: 0 } : { nullCount: slots - set, nullBitmap: bits };
}

/** Below this many bytes a plain loop beats creating a subarray for `set`. */
const BLOCK_COPY_BYTES = 64;

/**
 * `values[from, to)` to `out` at `at`, four bytes a step: short values (ids, names) are most
 * of what a gather copies, and this loop takes about half the time of one byte a step.
 */
function copyShort(values: Uint8Array, from: number, to: number, out: Uint8Array, at: number): void {
  let j = from;
  let d = at;
  for (; j + 4 <= to; j += 4, d += 4) {
    out[d] = values[j]!;
    out[d + 1] = values[j + 1]!;
    out[d + 2] = values[j + 2]!;
    out[d + 3] = values[j + 3]!;
  }
  for (; j < to; j++, d++) out[d] = values[j]!;
}

/** Utf8 and Binary: sizes first to allocate once, then copy runs of consecutive rows. */
function gatherVariableWidth(
  datas: readonly Data[],
  plan: GatherPlan,
): { valueOffsets: Int32Array; data: Uint8Array } {
  const { rows, runBatch, runEnd } = plan;
  const srcOffsets = datas.map((d) => d.valueOffsets as Int32Array);
  const srcValues = datas.map((d) => (d.values as Uint8Array | undefined) ?? new Uint8Array(0));
  const valueOffsets = new Int32Array(plan.length + 1);
  let pos = 0;
  let start = 0;
  for (let k = 0; k < runBatch.length; k++) {
    const offsets = srcOffsets[runBatch[k]!]!;
    const end = runEnd[k]!;
    for (let i = start; i < end; i++) {
      const r = rows[i]!;
      pos += offsets[r + 1]! - offsets[r]!;
      valueOffsets[i + 1] = pos;
    }
    start = end;
  }
  if (pos > 0x7fffffff) {
    throw new SluiceError('INTERNAL', `takeRows: ${pos} bytes of values exceed the 2 GiB of int32 offsets`, {
      bytes: pos,
    });
  }
  const data = new Uint8Array(pos);
  start = 0;
  for (let k = 0; k < runBatch.length; k++) {
    const b = runBatch[k]!;
    const offsets = srcOffsets[b]!;
    const values = srcValues[b]!;
    const end = runEnd[k]!;
    let i = start;
    while (i < end) {
      const first = rows[i]!;
      let next = i + 1;
      while (next < end && rows[next] === first + (next - i)) next++;
      const s = offsets[first]!;
      const e = offsets[first + (next - i)]!;
      const d = valueOffsets[i]!;
      if (e - s < BLOCK_COPY_BYTES) {
        copyShort(values, s, e, data, d);
      } else {
        data.set(values.subarray(s, e), d);
      }
      i = next;
    }
    start = end;
  }
  return { valueOffsets, data };
}

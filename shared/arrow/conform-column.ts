/**
 * An uploaded Arrow column turned into the table column's data, wherever the two can only
 * mean the same values: a dictionary is decoded, an integer or float widened to the
 * column's type without loss (int32 and narrower into int64 and float64), a timestamp of another unit or time zone rescaled to the
 * column's unit (Arrow timestamps with a zone count from the UTC epoch, as Sluice's do),
 * LargeUtf8 and LargeBinary (64-bit offsets, what Parquet readers, Polars and pyarrow's
 * large types make) taken as Utf8 and Binary, and an absent nullable column is all nulls. Anything else is refused with what to send.
 * A field's declared nullability is not part of its meaning: a column without nulls fits a
 * non-null column whatever its field says, and nulls in a non-null column are refused by
 * the data check.
 */
import {
  type Data,
  DataType,
  type Dictionary,
  type Field,
  makeData,
  Precision,
  TimeUnit,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { type ColumnType, columnTypeOfArrow, formatColumnType, toArrowType } from './column-type.ts';
import type { ColumnDef } from './schema.ts';

export type Conformed = { ok: true; data: Data } | { ok: false; reason: string };

/** How to make each column type, in the two producers users reach for first. */
const SEND: Record<ColumnType['kind'], string> = {
  int32: 'Int32 values (Arrow JS: an Int32Array; pyarrow: pa.int32())',
  int64:
    'Int64 values (Arrow JS: a BigInt64Array or vectorFromArray(values, new Int64()) — tableFromArrays makes Float64 of a number array; pyarrow: pa.int64())',
  float32: 'Float32 values (Arrow JS: a Float32Array; pyarrow: pa.float32())',
  float64: 'Float64 values (Arrow JS: a Float64Array or a number array; pyarrow: pa.float64())',
  bool: 'Bool values (pyarrow: pa.bool_())',
  utf8: 'Utf8 or LargeUtf8 strings, plain or dictionary-encoded (pyarrow: pa.string())',
  binary: 'Binary or LargeBinary values (pyarrow: pa.binary())',
  timestamp:
    'a Timestamp of any unit and time zone whose values are whole units of the column (pyarrow: pa.timestamp("ms"))',
  vector:
    'a FixedSizeList of Float32 with the column dimension (pyarrow: pa.list_(pa.float32(), dim); a variable-size List is not one)',
};

const UNIT_STEPS: Record<TimeUnit, number> = {
  [TimeUnit.SECOND]: 0,
  [TimeUnit.MILLISECOND]: 1,
  [TimeUnit.MICROSECOND]: 2,
  [TimeUnit.NANOSECOND]: 3,
};
const INT64_MAX = 2n ** 63n - 1n;

export function sendHint(column: ColumnDef): string {
  return SEND[column.type.kind];
}

/** Why an uploaded field cannot stand for the column, or null when it can. */
export function fieldProblem(column: ColumnDef, field: Field): string | null {
  const valueType = DataType.isDictionary(field.type) ? (field.type as Dictionary).dictionary : field.type;
  if (DataType.isDictionary(field.type) && columnTypeOfArrow(valueType) === null) {
    return `column "${column.name}" is a dictionary of ${valueType}`;
  }
  return fits(column.type, valueType) ? null : `column "${column.name}" has type ${field.type}`;
}

function fits(type: ColumnType, arrow: DataType): boolean {
  const exact = columnTypeOfArrow(arrow);
  if (exact && formatColumnType(exact) === formatColumnType(type)) return true;
  switch (type.kind) {
    case 'int64':
      return DataType.isInt(arrow) && arrow.bitWidth <= 32;
    case 'int32':
      return DataType.isInt(arrow) && arrow.bitWidth <= 16;
    case 'float64':
      return (
        (DataType.isFloat(arrow) && arrow.precision === Precision.SINGLE) ||
        (DataType.isInt(arrow) && arrow.bitWidth <= 32)
      );
    case 'timestamp':
      return DataType.isTimestamp(arrow);
    case 'utf8':
      return DataType.isLargeUtf8(arrow);
    case 'binary':
      return DataType.isLargeBinary(arrow);
    default:
      return false;
  }
}

/** All nulls of the column's type: what an absent nullable column holds. */
export function nullColumn(column: ColumnDef, length: number): Data {
  return vectorFromArray(new Array<null>(length).fill(null), toArrowType(column.type)).data[0]!;
}

/**
 * `data` (of a field that `fieldProblem` accepted) as data of the column's own type; the
 * result still goes through the buffer checks. `check` vets client buffers before any
 * value is read from them.
 */
export function conformColumn(
  column: ColumnDef,
  data: Data,
  check: (column: ColumnDef, data: Data) => string | null,
): Conformed {
  let values = data;
  if (DataType.isDictionary(data.type)) {
    const decoded = decodeDictionary(column, data, check);
    if (!decoded.ok) return decoded;
    values = decoded.data;
  }
  const exact = columnTypeOfArrow(values.type);
  if (exact && formatColumnType(exact) === formatColumnType(column.type)) return { ok: true, data: values };
  const problem = fixedWidthProblem(values);
  if (problem) return { ok: false, reason: `column "${column.name}": ${problem}` };
  if (DataType.isTimestamp(values.type)) return rescaleTimestamps(column, values);
  if (DataType.isLargeUtf8(values.type) || DataType.isLargeBinary(values.type))
    return narrowOffsets(column, values);
  return widen(column, values);
}

function decodeDictionary(
  column: ColumnDef,
  data: Data,
  check: (column: ColumnDef, data: Data) => string | null,
): Conformed {
  const dictionary = data.dictionary as Vector | undefined;
  const valueType = (data.type as Dictionary).dictionary;
  const kind = columnTypeOfArrow(valueType);
  if (!dictionary || !kind)
    return { ok: false, reason: `column "${column.name}": dictionary without values` };
  for (const chunk of dictionary.data) {
    const problem = check({ ...column, type: kind, nullable: true }, chunk);
    if (problem) return { ok: false, reason: `column "${column.name}" dictionary: ${problem}` };
  }
  const indexProblem = fixedWidthProblem(data);
  if (indexProblem)
    return { ok: false, reason: `column "${column.name}" dictionary indices: ${indexProblem}` };
  const indices = data.values as ArrayLike<number | bigint>;
  const rows: unknown[] = new Array(data.length);
  for (let row = 0; row < data.length; row++) {
    if (!isValidRow(data, row)) {
      rows[row] = null;
      continue;
    }
    const index = Number(indices[row]);
    if (!(index >= 0 && index < dictionary.length)) {
      return {
        ok: false,
        reason: `column "${column.name}": dictionary index ${index} of row ${row} is out of range`,
      };
    }
    rows[row] = dictionary.get(index);
  }
  return { ok: true, data: vectorFromArray(rows, valueType).data[0]! };
}

function isValidRow(data: Data, row: number): boolean {
  if (data.nullCount <= 0 || !data.nullBitmap) return true;
  const bit = data.offset + row;
  return ((data.nullBitmap[bit >> 3]! >> (bit & 7)) & 1) === 1;
}

function fixedWidthProblem(data: Data): string | null {
  const values = data.values as ArrayLike<unknown> | undefined;
  if (!values || values.length < data.length) return 'values buffer too short';
  if (
    data.nullCount > 0 &&
    (!data.nullBitmap || data.nullBitmap.length < (data.offset + data.length + 7) >> 3)
  ) {
    return 'validity buffer too short';
  }
  return null;
}

/** The validity of `data` as a fresh bitmap from row 0, so new value buffers can go beside it. */
function validityFromZero(data: Data): { nullCount: number; nullBitmap?: Uint8Array } {
  if (data.nullCount <= 0) return { nullCount: 0 };
  const bitmap = new Uint8Array((data.length + 7) >> 3);
  let nulls = 0;
  for (let row = 0; row < data.length; row++) {
    if (isValidRow(data, row)) bitmap[row >> 3]! |= 1 << (row & 7);
    else nulls++;
  }
  return { nullCount: nulls, nullBitmap: bitmap };
}

function widen(column: ColumnDef, data: Data): Conformed {
  const source = data.values as ArrayLike<number>;
  const type = toArrowType(column.type);
  const values =
    column.type.kind === 'int64'
      ? BigInt64Array.from({ length: data.length }, (_, row) => BigInt(source[row]!))
      : column.type.kind === 'int32'
        ? Int32Array.from({ length: data.length }, (_, row) => source[row]!)
        : Float64Array.from({ length: data.length }, (_, row) => source[row]!);
  return { ok: true, data: fixedWidthData(type, data, values) };
}

/** New values beside the validity of `data`; makeData's overloads are per type, the layout here is one. */
function fixedWidthData(type: DataType, data: Data, values: BigInt64Array | Int32Array | Float64Array): Data {
  const props = { type, length: data.length, data: values, ...validityFromZero(data) };
  return makeData(props as Parameters<typeof makeData>[0]);
}

/**
 * Large strings or bytes as the column's own type: the same values buffer behind 32-bit
 * offsets. A body is far below 2 GiB, so an offset that does not fit was garbled; the
 * result's offsets and bytes are then vetted like any uploaded column's.
 */
function narrowOffsets(column: ColumnDef, data: Data): Conformed {
  const source = data.valueOffsets as unknown as BigInt64Array | undefined;
  if (!source || source.length < data.length + 1)
    return { ok: false, reason: `column "${column.name}": offsets buffer too short` };
  const offsets = new Int32Array(data.length + 1);
  for (let row = 0; row <= data.length; row++) {
    const offset = source[row]!;
    if (offset < 0n || offset > 0x7fffffffn)
      return { ok: false, reason: `column "${column.name}": value offset ${offset} is out of range` };
    offsets[row] = Number(offset);
  }
  const type = toArrowType(column.type);
  const props = {
    type,
    length: data.length,
    valueOffsets: offsets,
    data: data.values,
    ...validityFromZero(data),
  };
  return { ok: true, data: makeData(props as Parameters<typeof makeData>[0]) };
}

function rescaleTimestamps(column: ColumnDef, data: Data): Conformed {
  if (column.type.kind !== 'timestamp')
    return { ok: false, reason: `column "${column.name}" is not a timestamp` };
  const type = toArrowType(column.type);
  if (!DataType.isTimestamp(data.type))
    return { ok: false, reason: `column "${column.name}" is not a timestamp` };
  const from = UNIT_STEPS[data.type.unit];
  const to = UNIT_STEPS[column.type.unit === 'ms' ? TimeUnit.MILLISECOND : TimeUnit.MICROSECOND];
  const factor = 1000n ** BigInt(Math.abs(to - from));
  const source = data.values as BigInt64Array;
  const values = new BigInt64Array(data.length);
  for (let row = 0; row < data.length; row++) {
    if (!isValidRow(data, row)) continue;
    const value = source[row]!;
    if (to >= from) {
      const scaled = value * factor;
      if (scaled > INT64_MAX || scaled < -INT64_MAX - 1n) {
        return {
          ok: false,
          reason: `column "${column.name}": the timestamp of row ${row} is out of range in ${column.type.unit}`,
        };
      }
      values[row] = scaled;
    } else {
      if (value % factor !== 0n) {
        return {
          ok: false,
          reason: `column "${column.name}": the timestamp of row ${row} is not a whole ${column.type.unit}; round it to ${column.type.unit} before sending, since Sluice would have to choose how`,
        };
      }
      values[row] = value / factor;
    }
  }
  return { ok: true, data: fixedWidthData(type, data, values) };
}

/**
 * JSON rows ⇄ Arrow, for the write path (`{rows:[…]}` bodies) and the read path (JSON
 * answers). Column buffers are built by hand (`column-builders.ts`) because
 * `vectorFromArray` is several times slower on the hot path of every JSON write.
 *
 * Every refusal is INVALID_ROWS with `{row, column, expected}` of the first refused row and
 * `rows`, every refused row (up to `MAX_REFUSED_ROWS`), and happens before the caller can
 * write anything (I9). Value rules are in `json-scalars.ts`.
 */
import { type Data, makeData, RecordBatch, type Schema, Struct, Table } from 'apache-arrow';
import { isSluiceError, SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';
import { type ColumnBuilder, columnBuilder } from './column-builders.ts';
import type { ColumnType } from './column-type.ts';
import { expectedJson, floatToJson, int64ToJson } from './json-scalars.ts';
import { type ColumnDef, type TableSchema, toArrowSchema } from './schema.ts';

/** How many refused rows one refusal names: enough for a loader to set a whole batch's aside at once. */
export const MAX_REFUSED_ROWS = 1000;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonRow = Record<string, JsonValue>;

export function rowsError(
  message: string,
  row: number | null,
  column: string | null,
  expected: string,
  cause?: unknown,
): SluiceError {
  return new SluiceError('INVALID_ROWS', message, { row, column, expected }, { cause });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function unknownColumn(
  row: Record<string, unknown>,
  index: number,
  known: ReadonlySet<string>,
): SluiceError | null {
  for (const key of Object.keys(row)) {
    if (!known.has(key)) {
      return rowsError(`row ${index}: unknown column "${key}"`, index, key, 'a column of the table schema');
    }
  }
  return null;
}

/** Checks every row is a plain object; returns how many properties each one has. */
function countProperties(rows: readonly unknown[]): Int32Array {
  const counts = new Int32Array(rows.length);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (!isPlainObject(row)) {
      throw rowsError(`row ${index}: expected an object, got ${describe(row)}`, index, null, 'object');
    }
    let keys = 0;
    for (const _key in row) keys++;
    counts[index] = keys;
  }
  return counts;
}

/**
 * Fills one column from every row. Column by column rather than row by row: the
 * property read `row[name]` then sees one name per loop, which V8 keeps fast.
 */
function fillColumn(
  rows: readonly unknown[],
  column: ColumnDef,
  builder: ColumnBuilder,
  present: Int32Array,
): void {
  const { name, nullable, type } = column;
  // A name such as `constructor` would otherwise read Object.prototype on a row that lacks it.
  const inherited = name in Object.prototype;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as Record<string, unknown>;
    const given = inherited && !Object.hasOwn(row, name) ? undefined : row[name];
    const value = given === undefined ? column.default : given;
    if (value === undefined || value === null) {
      if (!nullable) {
        const expected = expectedJson(type);
        const what = value === null ? 'is null in a non-nullable column' : 'is missing';
        throw rowsError(
          `row ${index}, column "${name}": ${what}; expected ${expected}`,
          index,
          name,
          expected,
        );
      }
      if (value === null) present[index]!++;
      builder.setNull(index);
      continue;
    }
    present[index]!++;
    if (!builder.set(index, value)) {
      const expected = expectedJson(type);
      throw rowsError(
        `row ${index}, column "${name}": expected ${expected}, got ${describe(value)}`,
        index,
        name,
        expected,
      );
    }
  }
}

/** Validates `rows` (an array of plain objects) against the schema and builds one record batch. */
export function jsonRowsToRecordBatch(schema: TableSchema, rows: unknown, arrowSchema?: Schema): RecordBatch {
  try {
    return buildRecordBatch(schema, rows, arrowSchema);
  } catch (err) {
    if (!isSluiceError(err, 'INVALID_ROWS') || typeof err.details.row !== 'number') throw err;
    throw everyRefusedRow(err, schema, rows as unknown[]);
  }
}

/**
 * The first refusal, naming every refused row in `details.rows` in row order, so that a
 * loader sets all of them aside and sends the rest once, rather than once per refused row.
 * Only on the error path: slices of the rows are built again, and a slice that fails is
 * halved until its refused rows stand alone — about one more build of the request, plus a
 * few small ones per refused row.
 */
function everyRefusedRow(first: SluiceError, schema: TableSchema, rows: unknown[]): SluiceError {
  const refused: Array<Record<string, unknown>> = [];
  for (let at = 0; at < rows.length && refused.length < MAX_REFUSED_ROWS; at += REFUSAL_SLICE_ROWS) {
    collectRefused(schema, rows, at, Math.min(at + REFUSAL_SLICE_ROWS, rows.length), refused);
  }
  return new SluiceError(
    'INVALID_ROWS',
    first.message,
    { ...first.details, rows: refused },
    { cause: first },
  );
}

const REFUSAL_SLICE_ROWS = 256;

function collectRefused(
  schema: TableSchema,
  rows: unknown[],
  from: number,
  to: number,
  refused: Array<Record<string, unknown>>,
): void {
  if (refused.length >= MAX_REFUSED_ROWS) return;
  try {
    buildRecordBatch(schema, rows.slice(from, to));
    return;
  } catch (err) {
    if (!isSluiceError(err, 'INVALID_ROWS')) throw err;
    if (to - from === 1) {
      refused.push({ ...err.details, row: from, message: err.message.replace(/^row 0\b/, `row ${from}`) });
      return;
    }
  }
  const middle = (from + to) >>> 1;
  collectRefused(schema, rows, from, middle, refused);
  collectRefused(schema, rows, middle, to, refused);
}

function buildRecordBatch(schema: TableSchema, rows: unknown, arrowSchema?: Schema): RecordBatch {
  if (!Array.isArray(rows))
    throw rowsError('rows must be an array of objects', null, null, 'array of objects');
  const length = rows.length;
  if (length === 0) throw rowsError('no rows', null, null, 'at least one row');
  const target = arrowSchema ?? toArrowSchema(schema);
  const properties = countProperties(rows);
  const present = new Int32Array(length);
  const children = schema.fields.map((column, i) => {
    const builder = columnBuilder(column.type, length);
    fillColumn(rows, column, builder, present);
    return builder.finish(target.fields[i]!.type);
  });
  const known = new Set(schema.fields.map((f) => f.name));
  for (let index = 0; index < length; index++) {
    // Only a row with a property no column read can differ; undefined-valued keys are not columns either.
    if (properties[index] !== present[index]) {
      const error = unknownColumn(rows[index] as Record<string, unknown>, index, known);
      if (error) throw error;
    }
  }
  const data = makeData({ type: new Struct(target.fields), length, children });
  return new RecordBatch(target, data);
}

export function jsonRowsToTable(schema: TableSchema, rows: unknown, arrowSchema?: Schema): Table {
  return new Table([jsonRowsToRecordBatch(schema, rows, arrowSchema)]);
}

type CellReader = (row: number) => JsonValue;

/**
 * Arrow JS slices value buffers (and offsets) when it slices data, so values are indexed
 * by row directly; validity and bool bits go by `data.offset`.
 */
function cellReader(type: ColumnType, data: Data): CellReader {
  const base = data.offset;
  const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
  const read = valueReader(type, data);
  if (!bitmap || bitmap.length === 0) return read;
  return (row) => ((bitmap[(base + row) >> 3]! >> ((base + row) & 7)) & 1 ? read(row) : null);
}

function bytesOf(data: Data): Buffer {
  const values = data.values as Uint8Array;
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

function valueReader(type: ColumnType, data: Data): CellReader {
  switch (type.kind) {
    case 'int32': {
      const values = data.values as Int32Array;
      return (row) => values[row]!;
    }
    case 'int64':
    case 'timestamp': {
      const values = data.values as BigInt64Array;
      return (row) => int64ToJson(values[row]!);
    }
    case 'float32':
    case 'float64': {
      const values = data.values as Float32Array | Float64Array;
      return (row) => floatToJson(values[row]!);
    }
    case 'bool': {
      const bits = data.values as Uint8Array;
      const base = data.offset;
      return (row) => ((bits[(base + row) >> 3]! >> ((base + row) & 7)) & 1) === 1;
    }
    case 'utf8':
    case 'binary': {
      const bytes = bytesOf(data);
      const offsets = data.valueOffsets as Int32Array;
      const encoding = type.kind === 'utf8' ? 'utf8' : 'base64';
      return (row) => bytes.toString(encoding, offsets[row]!, offsets[row + 1]!);
    }
    case 'vector': {
      const { dim } = type;
      const values = data.children[0]!.values as Float32Array;
      return (row) => {
        const from = row * dim;
        const out: JsonValue[] = new Array(dim);
        for (let i = 0; i < dim; i++) out[i] = floatToJson(values[from + i]!);
        return out;
      };
    }
  }
}

/**
 * Arrow rows as JSON-safe objects with the schema's columns, for the read path: int64 and
 * timestamps beyond 2^53 as decimal strings, binary as base64, non-finite floats as
 * "NaN"/"Infinity"/"-Infinity" — the same forms the write path accepts.
 */
export function tableToJsonRows(schema: TableSchema, rows: Table | RecordBatch): JsonRow[] {
  const out: JsonRow[] = [];
  const batches = rows instanceof Table ? rows.batches : [rows];
  for (const batch of batches) {
    const readers = schema.fields.map((field) => {
      const data = batch.getChild(field.name)?.data[0];
      if (!data) throw new SluiceError('INTERNAL', `rows have no column "${field.name}"`);
      return [field.name, cellReader(field.type, data)] as const;
    });
    for (let row = 0; row < batch.numRows; row++) {
      const object: JsonRow = {};
      for (const [name, read] of readers) object[name] = read(row);
      out.push(object);
    }
  }
  return out;
}

/**
 * Rows stored under an older schema of their table, read under a newer one (docs/design.md,
 * "Schema evolution"): a schema only grows, so a column the rows lack reads as its default
 * (column-default.ts) or null, and a widened one (int32 → int64, float32 → float64) is cast,
 * every value kept exactly. The columns whose type did not change are passed on as they are,
 * nothing copied.
 */
import {
  type Data,
  DataType,
  makeBuilder,
  makeData,
  RecordBatch,
  type Schema,
  Struct,
  Table,
} from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { DEFAULT_KEY, defaultData } from './column-default.ts';
import { isWidening } from './widening.ts';

export function conformColumns(schema: Schema, batch: RecordBatch): RecordBatch {
  const children = schema.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    const child = index < 0 ? undefined : batch.data.children[index];
    if (child) return isWidening(child.type, field.type) ? widened(child, field.type) : child;
    if (field.metadata.has(DEFAULT_KEY)) return defaultData(field, batch.numRows);
    if (!field.nullable) throw new SluiceError('INTERNAL', `rows have no column "${field.name}"`);
    return nulls(field.type, batch.numRows);
  });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

/** Whether rows of the columns `held` read under `schema` as they are: the same columns, none to widen. */
export function hasColumnsOf(schema: Schema, held: Schema): boolean {
  return (
    held === schema ||
    (held.fields.length === schema.fields.length &&
      schema.fields.every((f, i) => {
        const column = held.fields[i]!;
        return column.name === f.name && !isWidening(column.type, f.type);
      }))
  );
}

/** `table` under `schema`, or `table` itself when it has those columns already. */
export function conformTable(schema: Schema, table: Table): Table {
  if (hasColumnsOf(schema, table.schema)) return table;
  return new Table(
    schema,
    table.batches.map((b) => conformColumns(schema, b)),
  );
}

function nulls(type: DataType, length: number): Data {
  const builder = makeBuilder({ type, nullValues: [null] });
  for (let i = 0; i < length; i++) builder.append(null);
  return builder.finish().flush();
}

/** int32 values as int64, float32 as float64. */
function widened(data: Data, type: DataType): Data {
  // A slice's value buffer starts at its first row already; its validity bits do not.
  const values = (data.values as Int32Array | Float32Array).subarray(0, data.length);
  const wide =
    DataType.isInt(type) && type.bitWidth === 64
      ? BigInt64Array.from(values as Int32Array, (v) => BigInt(v))
      : DataType.isFloat(type)
        ? Float64Array.from(values as Float32Array)
        : null;
  if (wide === null) throw new SluiceError('INTERNAL', `rows of type ${data.type} cannot be read as ${type}`);
  const nullBitmap = data.nullCount > 0 ? copyBits(data.nullBitmap!, data.offset, data.length) : undefined;
  return makeData({ type, length: data.length, nullCount: data.nullCount, data: wide, nullBitmap } as never);
}

/** `length` validity bits from bit `offset` on, starting at bit 0 of a new bitmap. */
function copyBits(bits: Uint8Array, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(length / 8));
  for (let i = 0; i < length; i++) {
    const j = offset + i;
    if ((bits[j >> 3]! >> (j & 7)) & 1) out[i >> 3]! |= 1 << (i & 7);
  }
  return out;
}

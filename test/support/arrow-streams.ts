/**
 * Hand-built Arrow columns and IPC streams, including ones no honest writer produces
 * (wrong nullability, short buffers, bytes that are not UTF-8), to feed the decoders.
 */
import {
  type Data,
  type DataType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';

export interface Column {
  field: Field;
  data: Data;
}

export function int64Column(name: string, values: bigint[], nullable = false): Column {
  const data = makeData({ type: new Int64(), length: values.length, data: BigInt64Array.from(values) });
  return { field: new Field(name, new Int64(), nullable), data };
}

export function float64Column(name: string, values: number[], nullable = false): Column {
  const data = makeData({ type: new Float64(), length: values.length, data: Float64Array.from(values) });
  return { field: new Field(name, new Float64(), nullable), data };
}

export function utf8Column(name: string, values: (string | null)[], nullable = true): Column {
  return { field: new Field(name, new Utf8(), nullable), data: vectorFromArray(values, new Utf8()).data[0]! };
}

/** A utf8 column with raw offsets and bytes, valid or not. */
export function rawUtf8Column(name: string, offsets: number[], bytes: number[], nullable = true): Column {
  const data = makeData({
    type: new Utf8(),
    length: offsets.length - 1,
    valueOffsets: Int32Array.from(offsets),
    data: Uint8Array.from(bytes),
  });
  return { field: new Field(name, new Utf8(), nullable), data };
}

export function vectorColumn(name: string, rows: number[][], dim: number, nullable = true): Column {
  const type = new FixedSizeList(dim, new Field('item', new Float32(), true));
  const child = makeData({
    type: new Float32(),
    length: rows.length * dim,
    data: Float32Array.from(rows.flat()),
  });
  return { field: new Field(name, type, nullable), data: makeData({ type, length: rows.length, child }) };
}

export function columnOf(name: string, type: DataType, values: unknown[], nullable = true): Column {
  return { field: new Field(name, type, nullable), data: vectorFromArray(values, type).data[0]! };
}

export function tableOf(columns: Column[], metadata?: Map<string, string>): Table {
  const fields = columns.map((c) => c.field);
  const length = columns[0]?.data.length ?? 0;
  const data = makeData({ type: new Struct(fields), length, children: columns.map((c) => c.data) });
  return new Table([new RecordBatch(new Schema(fields, metadata), data)]);
}

export function streamOf(columns: Column[], metadata?: Map<string, string>): Uint8Array {
  return tableToIPC(tableOf(columns, metadata), 'stream');
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

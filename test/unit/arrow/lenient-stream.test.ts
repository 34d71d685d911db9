/**
 * Arrow streams as clients' usual producers make them: apache-arrow's tableFromArrays
 * (dictionary strings, Float64 numbers, millisecond dates), explicit schemas whose fields
 * are all nullable (pyarrow's default), and pyarrow-like streams with pandas metadata,
 * zoned timestamps of other units and narrower integers. Each is decoded into the table's
 * own schema when it has one meaning, and refused, saying what to send, when it has not.
 */
import {
  Dictionary,
  Field,
  Int8,
  Int16,
  Int32,
  Int64,
  LargeUtf8,
  makeData,
  Schema,
  Table,
  Timestamp,
  TimeUnit,
  tableFromArrays,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { decodeArrowStreamForTable } from '../../../shared/arrow/ipc.ts';
import { tableToJsonRows } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema, toArrowSchema } from '../../../shared/arrow/schema.ts';
import type { SluiceError } from '../../../shared/errors.ts';
import { type Column, columnOf, streamOf } from '../../support/arrow-streams.ts';

const schema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8', nullable: true },
      { name: 'at', type: 'timestamp[ms]', nullable: true },
      { name: 'score', type: 'float64', nullable: false },
      { name: 'emb', type: 'vector[float32, 2]', nullable: true },
    ],
  },
  ['id'],
);

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

function decodeRows(bytes: Uint8Array) {
  const decoded = decodeArrowStreamForTable(schema, bytes);
  expect(decoded.schema.fields.map((f) => [f.name, String(f.type), f.nullable])).toEqual(
    toArrowSchema(schema).fields.map((f) => [f.name, String(f.type), f.nullable]),
  );
  return tableToJsonRows(schema, decoded);
}

function refusal(bytes: Uint8Array): SluiceError {
  try {
    decodeArrowStreamForTable(schema, bytes);
  } catch (err) {
    return err as SluiceError;
  }
  throw new Error('the stream was accepted');
}

/** Raw epoch values in `unit`, as pyarrow sends them (Arrow JS's builders take milliseconds only). */
function timestamps(unit: TimeUnit, zone: string | null, values: (bigint | null)[]): Column {
  const type = new Timestamp(unit, zone);
  const nullBitmap = Uint8Array.of(
    values.reduce<number>((bits, v, i) => (v === null ? bits : bits | (1 << i)), 0),
  );
  const data = makeData({
    type,
    length: values.length,
    nullCount: values.filter((v) => v === null).length,
    nullBitmap,
    data: BigInt64Array.from(values, (v) => v ?? 0n),
  });
  return { field: new Field('at', type, true), data };
}

describe('Arrow uploads as producers make them', () => {
  it('tableFromArrays: dictionary strings, millisecond dates, a typed int64 key; the absent vector is null', () => {
    const table = tableFromArrays({
      id: BigInt64Array.from([1n, 2n]),
      name: ['a', 'b'],
      at: [new Date(AT), new Date(AT + 1)],
      score: Float64Array.from([0.5, 1.5]),
    });
    expect(String(table.schema.fields[1]!.type)).toBe('Dictionary<Int32, Utf8>');
    expect(decodeRows(tableToIPC(table, 'stream'))).toEqual([
      { id: 1, name: 'a', at: AT, score: 0.5, emb: null },
      { id: 2, name: 'b', at: AT + 1, score: 1.5, emb: null },
    ]);
  });

  it('an explicit schema with every field nullable, holding no null where the table has none', () => {
    const fields = [new Field('id', new Int64(), true), new Field('score', new Int32(), true)];
    const columns = [
      vectorFromArray([7n, 8n], new Int64()).data[0]!,
      vectorFromArray([1, 2], new Int32()).data[0]!,
    ];
    const bytes = streamOf(columns.map((data, i) => ({ field: fields[i]!, data })));
    expect(decodeRows(bytes)).toEqual([
      { id: 7, name: null, at: null, score: 1, emb: null },
      { id: 8, name: null, at: null, score: 2, emb: null },
    ]);
  });

  it('pyarrow-like: pandas metadata, Timestamp(us, "UTC") and (ns, "Europe/Paris"), int16 and int8-indexed dictionaries', () => {
    const metadata = new Map([['pandas', '{"index_columns": [], "columns": []}']]);
    const rows = (at: Column) =>
      decodeRows(
        streamOf(
          [
            columnOf('id', new Int16(), [3, 4], false),
            columnOf('name', new Dictionary(new Utf8(), new Int8()), ['x', null]),
            at,
            columnOf('score', new Int32(), [5, 6], false),
          ],
          metadata,
        ),
      );
    const expected = [
      { id: 3, name: 'x', at: AT, score: 5, emb: null },
      { id: 4, name: null, at: null, score: 6, emb: null },
    ];
    expect(rows(timestamps(TimeUnit.MICROSECOND, 'UTC', [BigInt(AT) * 1000n, null]))).toEqual(expected);
    expect(rows(timestamps(TimeUnit.NANOSECOND, 'Europe/Paris', [BigInt(AT) * 1_000_000n, null]))).toEqual(
      expected,
    );
    expect(rows(timestamps(TimeUnit.SECOND, '+01:00', [BigInt((AT / 1000) | 0), null]))[0]!.at).toBe(
      Math.floor(AT / 1000) * 1000,
    );
  });
  it('LargeUtf8 strings, as Parquet readers, Polars and pyarrow large_string make them', () => {
    const name = vectorFromArray(['Zürich', null], new LargeUtf8()).data[0]!;
    expect(name.valueOffsets).toBeInstanceOf(BigInt64Array);
    const bytes = streamOf([
      columnOf('id', new Int64(), [1n, 2n], false),
      { field: new Field('name', new LargeUtf8(), true), data: name },
      columnOf('score', new Int32(), [5, 6], false),
    ]);
    expect(decodeRows(bytes)).toEqual([
      { id: 1, name: 'Zürich', at: null, score: 5, emb: null },
      { id: 2, name: null, at: null, score: 6, emb: null },
    ]);
  });
});

describe('Arrow uploads with more than one meaning are refused, saying what to send', () => {
  const id = columnOf('id', new Int64(), [1n], false);
  const score = columnOf('score', new Int32(), [1], false);

  it('numbers that tableFromArrays made Float64, for an int64 key', () => {
    const error = refusal(
      tableToIPC(tableFromArrays({ id: [1, 2], score: Float64Array.from([1, 2]) }), 'stream'),
    );
    expect(error).toMatchObject({ code: 'INVALID_ROWS', details: { column: 'id' } });
    expect(error.message).toContain('has type Float64, expected int64 not null: send Int64 values');
    expect(error.message).toContain('BigInt64Array');
  });

  it('a timestamp finer than the column that is not a whole unit of it', () => {
    const at = timestamps(TimeUnit.MICROSECOND, 'UTC', [BigInt(AT) * 1000n + 1n]);
    const error = refusal(streamOf([id, at, score]));
    expect(error).toMatchObject({ code: 'INVALID_ROWS', details: { column: 'at' } });
    expect(error.message).toContain('is not a whole ms; round it to ms before sending');
  });

  it('a non-null column left out', () => {
    const error = refusal(streamOf([id]));
    expect(error).toMatchObject({ code: 'INVALID_ROWS', details: { column: 'score' } });
    expect(error.message).toContain('column "score" is missing: send it, as Float64 values');
  });

  it('a null in a nullable field for the non-null key', () => {
    const error = refusal(
      streamOf([
        columnOf('id', new Int64(), [1n, null], true),
        columnOf('score', new Int32(), [1, 2], false),
      ]),
    );
    expect(error.message).toContain('null values in a non-nullable column: send a value in every row');
  });

  it('a stream of no schema Sluice knows at all keeps the old answer', () => {
    const bytes = tableToIPC(new Table(new Schema([new Field('id', new Int64(), false)])), 'stream');
    expect(refusal(bytes)).toMatchObject({ code: 'INVALID_ROWS' });
  });
});

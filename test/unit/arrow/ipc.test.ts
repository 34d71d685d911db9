import { Field, FixedSizeList, Float32, RecordBatchStreamWriter, util } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  decodeArrowStreamForTable,
  decodeIpc,
  encodeIpcFile,
  encodeIpcStream,
  isIpcFile,
} from '../../../shared/arrow/ipc.ts';
import { jsonRowsToTable, tableToJsonRows } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema, toArrowSchema } from '../../../shared/arrow/schema.ts';
import { generationKey } from '../../../shared/table/paths.ts';
import {
  concatBytes,
  float64Column,
  int64Column,
  streamOf,
  utf8Column,
} from '../../support/arrow-streams.ts';
import { fullRow, sampleFields } from '../../support/sample-table.ts';

const schema = parseTableSchema({ fields: sampleFields }, ['id']);
const rows = Array.from({ length: 50 }, (_, i) => (i % 4 ? fullRow(i) : { id: i, count: i }));
const table = jsonRowsToTable(schema, rows);
const expected = tableToJsonRows(schema, table);

describe('IPC encode and decode', () => {
  it('round-trips the stream format', () => {
    const bytes = encodeIpcStream(table);
    expect(isIpcFile(bytes)).toBe(false);
    expect(tableToJsonRows(schema, decodeIpc(bytes))).toEqual(expected);
  });

  it('round-trips the file format (what data files are written in)', () => {
    const bytes = encodeIpcFile(table.batches[0]!);
    expect(isIpcFile(bytes)).toBe(true);
    expect(tableToJsonRows(schema, decodeIpc(bytes))).toEqual(expected);
  });

  it('reports a damaged stored object as DATA_CORRUPT, naming it', () => {
    const file = encodeIpcFile(table);
    const stream = encodeIpcStream(table);
    for (const bytes of [
      file.subarray(0, file.length - 10),
      stream.subarray(0, stream.length - 8),
      new Uint8Array(0),
    ]) {
      expect(() => decodeIpc(bytes, generationKey('t', 0, 1))).toThrow(
        expect.objectContaining({
          code: 'DATA_CORRUPT',
          details: expect.objectContaining({ source: generationKey('t', 0, 1) }),
        }),
      );
    }
  });
});

describe('decodeArrowStreamForTable', () => {
  const points = parseTableSchema(
    {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'name', type: 'utf8', nullable: true },
        { name: 'score', type: 'float64', nullable: false },
      ],
    },
    ['id'],
  );

  it('accepts a stream of the table schema and yields the canonical Arrow schema', () => {
    const decoded = decodeArrowStreamForTable(schema, encodeIpcStream(table));
    expect(util.compareSchemas(decoded.schema, toArrowSchema(schema))).toBe(true);
    expect(tableToJsonRows(schema, decoded)).toEqual(expected);
  });

  it('accepts columns in any order and puts them in table order, without sender metadata', () => {
    const columns = [
      float64Column('score', [0.5, 1.5]),
      utf8Column('name', ['a', null]),
      int64Column('id', [7n, 8n]),
    ];
    const bytes = streamOf(columns, new Map([['pandas', '{}']]));
    const decoded = decodeArrowStreamForTable(points, bytes);
    expect(decoded.schema.fields.map((f) => f.name)).toEqual(['id', 'name', 'score']);
    expect(decoded.schema.metadata.size).toBe(0);
    expect(tableToJsonRows(points, decoded)).toEqual([
      { id: 7, name: 'a', score: 0.5 },
      { id: 8, name: null, score: 1.5 },
    ]);
  });

  it('accepts vector elements named and flagged as other writers do', () => {
    const vec = parseTableSchema(
      {
        fields: [
          { name: 'id', type: 'int32' },
          { name: 'v', type: 'vector[float32, 2]' },
        ],
      },
      ['id'],
    );
    const foreignType = new FixedSizeList(2, new Field('element', new Float32(), false));
    const source = jsonRowsToTable(vec, [
      { id: 1, v: [1, 2] },
      { id: 2, v: null },
    ]);
    const [id, v] = source.batches[0]!.data.children;
    const bytes = streamOf([
      { field: source.schema.fields[0]!, data: id! },
      { field: new Field('v', foreignType, true), data: v!.clone(foreignType) },
    ]);
    const decoded = decodeArrowStreamForTable(vec, bytes);
    expect(util.compareSchemas(decoded.schema, toArrowSchema(vec))).toBe(true);
    expect(tableToJsonRows(vec, decoded)).toEqual([
      { id: 1, v: [1, 2] },
      { id: 2, v: null },
    ]);
  });

  it('reads every batch of a multi-batch stream and skips empty ones', () => {
    const parts = [rows.slice(0, 10), rows.slice(10, 11), rows.slice(11)].map((r) =>
      jsonRowsToTable(schema, r),
    );
    const batches = [
      parts[0]!.batches[0]!,
      parts[1]!.batches[0]!.slice(0, 0),
      parts[1]!.batches[0]!,
      parts[2]!.batches[0]!,
    ];
    const bytes = RecordBatchStreamWriter.writeAll(batches).toUint8Array(true);
    const decoded = decodeArrowStreamForTable(schema, bytes);
    expect(decoded.batches.length).toBe(3);
    expect(tableToJsonRows(schema, decoded)).toEqual(expected);
  });

  it('accepts the pre-0.15 stream framing (4-byte end marker)', () => {
    const bytes = RecordBatchStreamWriter.writeAll(table, { writeLegacyIpcFormat: true }).toUint8Array(true);
    expect(tableToJsonRows(schema, decodeArrowStreamForTable(schema, bytes))).toEqual(expected);
  });

  it('refuses a stream followed by a second one instead of dropping its rows', () => {
    const one = encodeIpcStream(table);
    expect(() => decodeArrowStreamForTable(schema, concatBytes(one, one))).toThrow(
      expect.objectContaining({ code: 'INVALID_ROWS' }),
    );
  });
});

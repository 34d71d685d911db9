/**
 * I9: every bad table definition, JSON row body and Arrow stream is refused with its
 * error code before anything is written. Each case runs through the same steps the
 * service takes — catalog create, or validate-then-put a WAL entry — against an
 * in-memory store, and the store must hold exactly what it held before.
 */
import {
  Binary,
  Dictionary,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  Schema,
  Table,
  TimestampMillisecond,
  tableToIPC,
  Utf8,
} from 'apache-arrow';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeArrowStreamForTable, encodeIpcFile, encodeIpcStream } from '../../../shared/arrow/ipc.ts';
import { jsonRowsToTable } from '../../../shared/arrow/json-rows.ts';
import { type ErrorCode, SluiceError } from '../../../shared/errors.ts';
import { hintsFor } from '../../../shared/store/versioned-document.ts';
import { TableCatalog } from '../../../shared/table/catalog.ts';
import { tableConfigKey, walKey } from '../../../shared/table/paths.ts';
import { SchemaDocuments } from '../../../shared/table/schema-documents.ts';
import type { TableDef } from '../../../shared/table/table-def.ts';
import {
  type Column,
  columnOf,
  concatBytes,
  float64Column,
  int64Column,
  rawUtf8Column,
  streamOf,
  tableOf,
  utf8Column,
  vectorColumn,
} from '../../support/arrow-streams.ts';
import { MemoryStore } from '../../support/memory-store.ts';
import { defaultSettings, fullRow, sampleCreate, sampleFields } from '../../support/sample-table.ts';

async function refusal(action: () => Promise<unknown>): Promise<SluiceError> {
  try {
    await action();
  } catch (err) {
    if (err instanceof SluiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal, the input was accepted');
}

function fields(...extra: unknown[]): unknown {
  return { fields: [{ name: 'id', type: 'int64' }, ...extra] };
}

interface Case {
  name: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
}

interface CreateCase extends Case {
  body: unknown;
}

const createCases: CreateCase[] = [
  { name: 'body is not an object', body: [sampleCreate()], code: 'INVALID_REQUEST' },
  { name: 'unknown top-level property', body: sampleCreate({ shard: 4 }), code: 'INVALID_REQUEST' },
  { name: 'table name missing', body: sampleCreate({ name: undefined }), code: 'INVALID_TABLE_NAME' },
  { name: 'table name ".."', body: sampleCreate({ name: '..' }), code: 'INVALID_TABLE_NAME' },
  { name: 'table name "."', body: sampleCreate({ name: '.' }), code: 'INVALID_TABLE_NAME' },
  { name: 'table name with a slash', body: sampleCreate({ name: 'a/b' }), code: 'INVALID_TABLE_NAME' },
  { name: 'table name starting with "-"', body: sampleCreate({ name: '-x' }), code: 'INVALID_TABLE_NAME' },
  {
    name: 'table name of 129 characters',
    body: sampleCreate({ name: 'a'.repeat(129) }),
    code: 'INVALID_TABLE_NAME',
  },
  { name: 'table name not a string', body: sampleCreate({ name: 7 }), code: 'INVALID_TABLE_NAME' },
  { name: 'schema missing', body: sampleCreate({ schema: undefined }), code: 'INVALID_SCHEMA' },
  { name: 'schema is an array', body: sampleCreate({ schema: sampleFields }), code: 'INVALID_SCHEMA' },
  { name: 'schema has no fields', body: sampleCreate({ schema: { fields: [] } }), code: 'INVALID_SCHEMA' },
  {
    name: 'schema.fields is not an array',
    body: sampleCreate({ schema: { fields: {} } }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'unknown schema property',
    body: sampleCreate({ schema: { fields: sampleFields, metadata: {} } }),
    code: 'INVALID_SCHEMA',
  },
  { name: 'field is not an object', body: sampleCreate({ schema: fields('x') }), code: 'INVALID_SCHEMA' },
  ...[
    ['unknown type int128', 'int128'],
    ['type "string"', 'string'],
    ['upper-case type', 'INT32'],
    ['type with outer spaces', ' int32'],
    ['timestamp[ns]', 'timestamp[ns]'],
    ['timestamp without unit', 'timestamp'],
    ['vector of float64', 'vector[float64, 3]'],
    ['vector without dimension', 'vector[float32]'],
    ['vector dimension 0', 'vector[float32, 0]'],
    ['negative vector dimension', 'vector[float32, -4]'],
    ['absurd vector dimension', 'vector[float32, 100000]'],
    ['type not a string', 32],
  ].map(
    ([name, type]): CreateCase => ({
      name: `${name}`,
      body: sampleCreate({ schema: fields({ name: 'x', type }) }),
      code: 'INVALID_SCHEMA',
      details: { column: 'x' },
    }),
  ),
  {
    name: 'type missing',
    body: sampleCreate({ schema: fields({ name: 'x' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'x' },
  },
  {
    name: 'duplicate column name',
    body: sampleCreate({ schema: fields({ name: 'id', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'id' },
  },
  {
    name: 'duplicate column name ignoring case',
    body: sampleCreate({ schema: fields({ name: 'ID', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'ID' },
  },
  {
    name: 'empty column name',
    body: sampleCreate({ schema: fields({ name: '', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: '' },
  },
  {
    name: 'column name with a space',
    body: sampleCreate({ schema: fields({ name: 'first name', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'first name' },
  },
  {
    name: 'column name starting with a digit',
    body: sampleCreate({ schema: fields({ name: '1st', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'column name of 129 characters',
    body: sampleCreate({ schema: fields({ name: 'c'.repeat(129), type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'reserved column name _sluice_op',
    body: sampleCreate({ schema: fields({ name: '_sluice_op', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: '_sluice_op' },
  },
  {
    name: 'reserved prefix in another case',
    body: sampleCreate({ schema: fields({ name: '_SLUICE_seq', type: 'int64' }) }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'column named _distance, which searches answer beside the rows',
    body: sampleCreate({ schema: fields({ name: '_Distance', type: 'float32' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: '_Distance' },
  },
  {
    name: 'column named _score, which full-text searches answer beside the rows',
    body: sampleCreate({ schema: fields({ name: '_score', type: 'float64' }) }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'column named __proto__',
    body: sampleCreate({ schema: fields({ name: '__proto__', type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: '__proto__' },
  },
  {
    name: 'column name not a string',
    body: sampleCreate({ schema: fields({ name: 5, type: 'utf8' }) }),
    code: 'INVALID_SCHEMA',
  },
  {
    name: 'nullable is not a boolean',
    body: sampleCreate({ schema: fields({ name: 'x', type: 'utf8', nullable: 'yes' }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'x' },
  },
  {
    name: 'misspelled field property',
    body: sampleCreate({ schema: fields({ name: 'x', type: 'utf8', nullabel: true }) }),
    code: 'INVALID_SCHEMA',
    details: { column: 'x' },
  },
  {
    name: 'more than 1024 columns',
    body: sampleCreate({
      schema: fields(...Array.from({ length: 1024 }, (_, i) => ({ name: `c${i}`, type: 'int32' }))),
    }),
    code: 'INVALID_SCHEMA',
  },
  { name: 'primary key not an array', body: sampleCreate({ primaryKey: 'id' }), code: 'INVALID_SCHEMA' },
  { name: 'primary key null', body: sampleCreate({ primaryKey: null }), code: 'INVALID_SCHEMA' },
  { name: 'primary key as a bare string', body: sampleCreate({ primaryKey: 'id' }), code: 'INVALID_SCHEMA' },
  {
    name: 'primary key names an unknown column',
    body: sampleCreate({ primaryKey: ['uid'] }),
    code: 'INVALID_SCHEMA',
    details: { column: 'uid' },
  },
  {
    name: 'primary key lists a column twice',
    body: sampleCreate({ primaryKey: ['id', 'id'] }),
    code: 'INVALID_SCHEMA',
    details: { column: 'id' },
  },
  {
    name: 'nullable primary key column',
    body: sampleCreate({ schema: { fields: [{ name: 'id', type: 'int64', nullable: true }] } }),
    code: 'INVALID_SCHEMA',
    details: { column: 'id' },
  },
  ...['ratio', 'small', 'ok', 'blob', 'at', 'emb'].map(
    (column): CreateCase => ({
      name: `primary key on a ${sampleFields.find((f) => f.name === column)?.type} column`,
      body: sampleCreate({ primaryKey: ['id', column] }),
      code: 'INVALID_SCHEMA',
      details: { column },
    }),
  ),
  {
    name: 'zero shards',
    body: sampleCreate({ shards: 0 }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'shards' },
  },
  { name: '1025 shards', body: sampleCreate({ shards: 1025 }), code: 'INVALID_SETTINGS' },
  { name: 'fractional shards', body: sampleCreate({ shards: 2.5 }), code: 'INVALID_SETTINGS' },
  { name: 'shards as a string', body: sampleCreate({ shards: '4' }), code: 'INVALID_SETTINGS' },
  { name: 'settings not an object', body: sampleCreate({ settings: 8 }), code: 'INVALID_SETTINGS' },
  {
    name: 'unknown setting',
    body: sampleCreate({ settings: { mergeEvery: 3 } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'mergeEvery' },
  },
  {
    name: 'setting as a numeric string',
    body: sampleCreate({ settings: { mergeAfterGenerations: '8' } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'mergeAfterGenerations' },
  },
  {
    name: 'setting null',
    body: sampleCreate({ settings: { mergeAfterSeconds: null } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'mergeAfterSeconds' },
  },
  {
    name: 'negative setting',
    body: sampleCreate({ settings: { mergeAfterGenerations: -1 } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'mergeAfterGenerations' },
  },
  {
    name: 'setting below its minimum',
    body: sampleCreate({ settings: { maxGenerationsPerMerge: 0 } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'maxGenerationsPerMerge' },
  },
  {
    name: 'fractional setting',
    body: sampleCreate({ settings: { sealDelayMs: 0.5 } }),
    code: 'INVALID_SETTINGS',
    details: { setting: 'sealDelayMs' },
  },
];

interface RowsCase extends Case {
  rows: unknown;
}

const base = { id: 1, count: 1 };

const rowsCases: RowsCase[] = [
  { name: 'rows is an object', rows: { id: 1 }, code: 'INVALID_ROWS' },
  { name: 'rows is a string', rows: '[{"id":1}]', code: 'INVALID_ROWS' },
  { name: 'no rows', rows: [], code: 'INVALID_ROWS' },
  { name: 'a row is null', rows: [base, null], code: 'INVALID_ROWS', details: { row: 1 } },
  { name: 'a row is an array', rows: [[1, 1]], code: 'INVALID_ROWS', details: { row: 0 } },
  { name: 'a row is a number', rows: [base, base, 3], code: 'INVALID_ROWS', details: { row: 2 } },
  {
    name: 'unknown column',
    rows: [base, { ...base, colour: 'red' }],
    code: 'INVALID_ROWS',
    details: { row: 1, column: 'colour' },
  },
  {
    name: 'primary key missing',
    rows: [{ count: 1 }],
    code: 'INVALID_ROWS',
    details: { row: 0, column: 'id' },
  },
  {
    name: 'non-nullable column missing',
    rows: [{ id: 1 }],
    code: 'INVALID_ROWS',
    details: { column: 'count' },
  },
  {
    name: 'null in a non-nullable column',
    rows: [{ id: 1, count: null }],
    code: 'INVALID_ROWS',
    details: { column: 'count' },
  },
  ...(
    [
      ['int32 given a fraction', 'count', 1.5],
      ['int32 above range', 'count', 2 ** 31],
      ['int32 below range', 'count', -(2 ** 31) - 1],
      ['int32 given a string', 'count', '5'],
      ['int64 number beyond 2^53', 'big', 2 ** 53 + 2],
      ['int64 string above range', 'big', '9223372036854775808'],
      ['int64 string below range', 'big', '-9223372036854775809'],
      ['int64 "NaN"', 'big', 'NaN'],
      ['int64 "Infinity"', 'big', 'Infinity'],
      ['int64 string with letters', 'big', '12abc'],
      ['int64 in exponent notation', 'big', '1e3'],
      ['int64 with leading zeros', 'big', '007'],
      ['int64 given a boolean', 'big', true],
      ['int64 primary key given a fraction', 'id', 0.5],
      ['float64 given a numeric string', 'ratio', '1.5'],
      ['float64 given lower-case "nan"', 'ratio', 'nan'],
      ['float64 given an object', 'ratio', { value: 1 }],
      ['float32 overflow', 'small', 1e39],
      ['bool given 1', 'ok', 1],
      ['bool given "true"', 'ok', 'true'],
      ['utf8 given a number', 'label', 42],
      ['utf8 with a lone surrogate', 'label', 'a\ud800b'],
      ['binary not base64', 'blob', '!!!!'],
      ['binary without padding', 'blob', 'AAE'],
      ['binary in base64url', 'blob', '-_-_'],
      ['binary given bytes as an array', 'blob', [0, 1, 2]],
      ['timestamp month 13', 'at', '2024-13-01T00:00:00Z'],
      ['timestamp February 30', 'at', '2024-02-30T00:00:00Z'],
      ['timestamp hour 24', 'at', '2024-01-01T24:00:00Z'],
      ['timestamp in words', 'at', 'yesterday'],
      ['timestamp in RFC 2822', 'at', 'Mon, 01 Jan 2024 00:00:00 GMT'],
      ['timestamp[ms] with microseconds', 'at', '2024-01-01T00:00:00.0001Z'],
      ['timestamp[us] with nanoseconds', 'at_us', '2024-01-01T00:00:00.0000001Z'],
      ['timestamp given a fraction', 'at', 1.5],
      ['vector too short', 'emb', [1, 2]],
      ['vector too long', 'emb', [1, 2, 3, 4]],
      ['vector with a string element', 'emb', [1, 'a', 3]],
      ['vector with a null element', 'emb', [1, null, 3]],
      ['vector element overflows float32', 'emb', [1, 1e40, 3]],
      ['vector not an array', 'emb', '1,2,3'],
    ] as const
  ).map(
    ([name, column, value]): RowsCase => ({
      name,
      rows: [base, { ...base, [column]: value }],
      code: 'INVALID_ROWS',
      details: { row: 1, column },
    }),
  ),
];

/** The Arrow stream table: what the streams below are checked against. */
const pointsCreate = {
  name: 'points',
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8', nullable: true },
      { name: 'score', type: 'float64', nullable: false },
      { name: 'emb', type: 'vector[float32, 2]', nullable: true },
    ],
  },
  primaryKey: ['id'],
};

const id = (nullable = false) => int64Column('id', [1n, 2n], nullable);
const name = () => utf8Column('name', ['a', null]);
const score = (nullable = false) => float64Column('score', [0.5, 1.5], nullable);
const emb = () =>
  vectorColumn(
    'emb',
    [
      [1, 2],
      [3, 4],
    ],
    2,
  );
const valid = (): Column[] => [id(), name(), score(), emb()];

function cut(bytes: Uint8Array, drop: number): Uint8Array {
  return bytes.subarray(0, bytes.length - drop);
}

interface ArrowCase extends Case {
  bytes: () => Uint8Array;
}

const arrowCases: ArrowCase[] = [
  { name: 'empty body', bytes: () => new Uint8Array(0), code: 'INVALID_ROWS' },
  { name: 'JSON sent as Arrow', bytes: () => Buffer.from('{"rows":[{"id":1}]}'), code: 'INVALID_ROWS' },
  {
    name: 'random bytes',
    bytes: () => Uint8Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) % 251),
    code: 'INVALID_ROWS',
  },
  {
    name: 'IPC file format instead of stream',
    bytes: () => tableToIPC(tableOf(valid()), 'file'),
    code: 'INVALID_ROWS',
  },
  { name: 'truncated mid-message', bytes: () => cut(streamOf(valid()), 40), code: 'INVALID_ROWS' },
  { name: 'truncated at a message boundary', bytes: () => cut(streamOf(valid()), 8), code: 'INVALID_ROWS' },
  { name: 'only the first 8 bytes', bytes: () => streamOf(valid()).subarray(0, 8), code: 'INVALID_ROWS' },
  {
    name: 'bytes after the end-of-stream marker',
    bytes: () => concatBytes(streamOf(valid()), Uint8Array.of(1, 2, 3, 4)),
    code: 'INVALID_ROWS',
  },
  {
    name: 'two streams glued together',
    bytes: () => concatBytes(streamOf(valid()), streamOf(valid())),
    code: 'INVALID_ROWS',
  },
  {
    name: 'garbled schema message',
    bytes: () => {
      const bytes = Uint8Array.from(streamOf(valid()));
      for (let i = 8; i < 40; i++) bytes[i] = 0xee;
      return bytes;
    },
    code: 'INVALID_ROWS',
  },
  {
    name: 'schema only, no batch',
    bytes: () => tableToIPC(new Table(new Schema(valid().map((c) => c.field))), 'stream'),
    code: 'INVALID_ROWS',
  },
  {
    name: 'only an empty batch',
    bytes: () => streamOf(valid().map((c) => ({ ...c, data: c.data.slice(0, 0) }))),
    code: 'INVALID_ROWS',
  },
  {
    name: 'non-nullable column missing',
    bytes: () => streamOf([id(), name(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'extra column',
    bytes: () => streamOf([...valid(), utf8Column('colour', ['r', 'g'])]),
    code: 'INVALID_ROWS',
    details: { column: 'colour' },
  },
  {
    name: 'column given twice',
    bytes: () => streamOf([...valid(), utf8Column('name', ['r', 'g'])]),
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'float64 where int64 is expected (what tableFromArrays makes of numbers)',
    bytes: () => streamOf([columnOf('id', new Float64(), [1, 2], false), name(), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'id' },
  },
  {
    name: 'int64 where float64 is expected (not exact beyond 2^53)',
    bytes: () => streamOf([id(), name(), columnOf('score', new Int64(), [1n, 2n], false), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'binary where utf8 is expected',
    bytes: () => streamOf([id(), columnOf('name', new Binary(), [Uint8Array.of(1), null]), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'dictionary-encoded utf8 where float64 is expected',
    bytes: () =>
      streamOf([
        id(),
        name(),
        columnOf('score', new Dictionary(new Utf8(), new Int32()), ['a', 'a'], false),
        emb(),
      ]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'dictionary index out of range',
    bytes: () => {
      const column = columnOf('name', new Dictionary(new Utf8(), new Int32()), ['a', 'b']);
      (column.data.values as Int32Array)[1] = 7;
      return streamOf([id(), column, score(), emb()]);
    },
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'timestamp where float64 is expected',
    bytes: () =>
      streamOf([id(), name(), columnOf('score', new TimestampMillisecond(), [1, 2], false), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'vector of the wrong dimension',
    bytes: () =>
      streamOf([
        id(),
        name(),
        score(),
        vectorColumn(
          'emb',
          [
            [1, 2, 3],
            [4, 5, 6],
          ],
          3,
        ),
      ]),
    code: 'INVALID_ROWS',
    details: { column: 'emb' },
  },
  {
    name: 'vector of float64 elements',
    bytes: () => {
      const type = new FixedSizeList(2, new Field('item', new Float64(), true));
      return streamOf([
        id(),
        name(),
        score(),
        columnOf('emb', type, [
          [1, 2],
          [3, 4],
        ]),
      ]);
    },
    code: 'INVALID_ROWS',
    details: { column: 'emb' },
  },
  {
    name: 'null in a nullable primary key field',
    bytes: () => streamOf([columnOf('id', new Int64(), [1n, null], true), name(), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'id' },
  },
  {
    name: 'nulls in a nullable field for a non-nullable column',
    bytes: () => streamOf([id(), name(), columnOf('score', new Float64(), [1, null], true), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'a variable-size list where a vector is expected',
    bytes: () =>
      streamOf([
        id(),
        name(),
        score(),
        columnOf('emb', new List(new Field('item', new Float32(), true)), [
          [1, 2],
          [3, 4],
        ]),
      ]),
    code: 'INVALID_ROWS',
    details: { column: 'emb' },
  },
  {
    name: 'nulls in a field declared non-nullable',
    bytes: () => streamOf([id(), name(), columnOf('score', new Float64(), [1, null], false), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'score' },
  },
  {
    name: 'utf8 bytes that are not UTF-8',
    bytes: () => streamOf([id(), rawUtf8Column('name', [0, 1, 2], [0x61, 0xff]), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'utf8 value split inside a character',
    bytes: () => streamOf([id(), rawUtf8Column('name', [0, 1, 2], [0xc3, 0xa9]), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'utf8 offsets that decrease',
    bytes: () => streamOf([id(), rawUtf8Column('name', [0, 2, 1], [0x61, 0x62]), score(), emb()]),
    code: 'INVALID_ROWS',
    details: { column: 'name' },
  },
  {
    name: 'vector with a null element',
    bytes: () =>
      streamOf([
        id(),
        name(),
        score(),
        columnOf('emb', embType(), [
          [1, null],
          [3, 4],
        ]),
      ]),
    code: 'INVALID_ROWS',
    details: { column: 'emb' },
  },
];

function embType(): FixedSizeList {
  return new FixedSizeList(2, new Field('item', new Float32(), true));
}

describe('bad input writes nothing (I9)', () => {
  let store: MemoryStore;
  let catalog: TableCatalog;

  beforeEach(() => {
    store = new MemoryStore();
    catalog = new TableCatalog(store, defaultSettings, new SchemaDocuments(store, hintsFor(60_000)));
  });

  /** What the write path does with a body: validate it completely, then put one WAL entry. */
  async function ingest(def: TableDef, body: { json: unknown } | { arrow: Uint8Array }): Promise<void> {
    const rows =
      'json' in body
        ? jsonRowsToTable(def.schema, body.json)
        : decodeArrowStreamForTable(def.schema, body.arrow);
    await store.putIfAbsent(walKey(def.name, 0, 1), encodeIpcFile(rows));
  }

  it('has at least 40 cases of each kind', () => {
    expect(createCases.length).toBeGreaterThanOrEqual(40);
    expect(rowsCases.length).toBeGreaterThanOrEqual(40);
    expect(arrowCases.length).toBeGreaterThanOrEqual(25);
  });

  it('accepts the valid inputs the cases are variations of (the harness does write)', async () => {
    const events = await catalog.create(sampleCreate());
    await ingest(events, { json: [base, fullRow(1)] });
    const points = await catalog.create(pointsCreate);
    await ingest(points, { arrow: streamOf(valid()) });
    expect(store.keys()).toEqual([
      walKey('events', 0, 1),
      tableConfigKey('events'),
      walKey('points', 0, 1),
      tableConfigKey('points'),
    ]);
  });

  describe('table definitions', () => {
    it.each(createCases)('$name → $code', async ({ body, code, details }) => {
      const error = await refusal(() => catalog.create(body));
      expect(error.code).toBe(code);
      if (details) expect(error.details).toMatchObject(details);
      expect(store.keys()).toEqual([]);
    });
  });

  describe('JSON rows', () => {
    it.each(rowsCases)('$name → $code', async ({ rows, code, details }) => {
      const def = await catalog.create(sampleCreate());
      const before = store.keys();
      const error = await refusal(() => ingest(def, { json: rows }));
      expect(error.code).toBe(code);
      if (details) expect(error.details).toMatchObject(details);
      expect(error.details).toHaveProperty('expected');
      expect(store.keys()).toEqual(before);
    });
  });

  describe('Arrow IPC streams', () => {
    it.each(arrowCases)('$name → $code', async ({ bytes, code, details }) => {
      const def = await catalog.create(pointsCreate);
      const before = store.keys();
      const error = await refusal(() => ingest(def, { arrow: bytes() }));
      expect(error.code).toBe(code);
      if (details) expect(error.details).toMatchObject(details);
      expect(store.keys()).toEqual(before);
    });

    it('refuses every truncation of a valid stream', async () => {
      const def = await catalog.create(pointsCreate);
      const whole = encodeIpcStream(decodeArrowStreamForTable(def.schema, streamOf(valid())));
      for (let length = 0; length < whole.length; length++) {
        const error = await refusal(() => ingest(def, { arrow: whole.subarray(0, length) }));
        expect(error.code, `cut at ${length} of ${whole.length}`).toBe('INVALID_ROWS');
      }
      expect(store.keys()).toEqual([tableConfigKey('points')]);
    });
  });

  it('a refused definition leaves an existing table as it was', async () => {
    await catalog.create(sampleCreate());
    const stored = await store.get(tableConfigKey('events'));
    await expect(catalog.create(sampleCreate({ shards: 0 }))).rejects.toMatchObject({
      code: 'INVALID_SETTINGS',
    });
    expect(await store.get(tableConfigKey('events'))).toEqual(stored);
  });
});

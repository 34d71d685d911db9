import {
  Binary,
  Bool,
  type Data,
  type DataType,
  Dictionary,
  Field,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  LargeUtf8,
  List,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMicrosecond,
  TimestampMillisecond,
  tableFromIPC,
  tableToIPC,
  Uint8,
  Uint32,
  Utf8,
  Vector,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { concatBatches, takeRows } from '../../../shared/arrow/take.ts';
import { isSluiceError } from '../../../shared/errors.ts';
import { seededRandom } from '../../support/random.ts';

// ---------------------------------------------------------------------------------------
// Building sources and the naive reference

type Rng = () => number;

const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

interface Kind {
  readonly name: string;
  readonly type: () => DataType;
  readonly value: (rng: Rng) => unknown;
}

const randomInt64 = (rng: Rng): bigint =>
  BigInt.asIntN(64, (BigInt(int(rng, 0, 0xffffffff)) << 32n) | BigInt(int(rng, 0, 0xffffffff)));

const randomVector = (dim: number) => (rng: Rng) =>
  Array.from({ length: dim }, () => (rng() < 0.1 ? null : Math.fround(rng() * 2 - 1)));

const KINDS: readonly Kind[] = [
  { name: 'int8', type: () => new Int8(), value: (rng) => int(rng, -128, 127) },
  { name: 'int16', type: () => new Int16(), value: (rng) => int(rng, -32768, 32767) },
  { name: 'int32', type: () => new Int32(), value: (rng) => int(rng, -2147483648, 2147483647) },
  { name: 'uint8', type: () => new Uint8(), value: (rng) => int(rng, 0, 255) },
  { name: 'uint32', type: () => new Uint32(), value: (rng) => int(rng, 0, 4294967295) },
  { name: 'int64', type: () => new Int64(), value: randomInt64 },
  { name: 'float16', type: () => new Float16(), value: (rng) => int(rng, -2048, 2048) / 4 },
  { name: 'float32', type: () => new Float32(), value: (rng) => Math.fround(rng() * 1e6 - 5e5) },
  { name: 'float64', type: () => new Float64(), value: (rng) => rng() * 1e12 - 5e11 },
  { name: 'bool', type: () => new Bool(), value: (rng) => rng() < 0.5 },
  {
    name: 'utf8',
    type: () => new Utf8(),
    value: (rng) => 'héllo 🌊 '.repeat(int(rng, 0, 8)).slice(0, int(rng, 0, 60)) + String(int(rng, 0, 999)),
  },
  {
    name: 'binary',
    type: () => new Binary(),
    value: (rng) => Uint8Array.from({ length: int(rng, 0, 40) }, () => int(rng, 0, 255)),
  },
  {
    name: 'timestamp[ms]',
    type: () => new TimestampMillisecond(),
    value: (rng) => BigInt(int(rng, -1e12, 4e12)),
  },
  {
    name: 'timestamp[us]',
    type: () => new TimestampMicrosecond(),
    value: (rng) => BigInt(int(rng, -1e12, 4e12)) * 1000n + BigInt(int(rng, 0, 999)),
  },
  {
    name: 'vector[8]',
    type: () => new FixedSizeList(8, new Field('item', new Float32(), true)),
    value: randomVector(8),
  },
  {
    name: 'vector[3]',
    type: () => new FixedSizeList(3, new Field('item', new Float32(), true)),
    value: randomVector(3),
  },
  {
    // Above the kernel's block-copy threshold (64 words per row).
    name: 'vector[80]',
    type: () => new FixedSizeList(80, new Field('item', new Float32(), true)),
    value: randomVector(80),
  },
];

function isBigIntBacked(type: DataType): boolean {
  return (
    type instanceof Int64 || type instanceof TimestampMillisecond || type instanceof TimestampMicrosecond
  );
}

/** One column's Data from JS values (null = null); 64-bit values are given as bigint. */
function columnData(type: DataType, values: readonly unknown[]): Data {
  if (isBigIntBacked(type)) {
    const data = new BigInt64Array(values.length);
    const nullBitmap = new Uint8Array((values.length + 7) >> 3);
    let nullCount = 0;
    for (const [i, v] of values.entries()) {
      if (v === null) nullCount++;
      else {
        data[i] = v as bigint;
        nullBitmap[i >> 3]! |= 1 << (i & 7);
      }
    }
    return makeData({
      type,
      length: values.length,
      data,
      nullCount,
      ...(nullCount > 0 ? { nullBitmap } : {}),
    } as Parameters<typeof makeData>[0]);
  }
  const chunks = vectorFromArray(values as unknown[], type).data;
  expect(chunks).toHaveLength(1);
  return chunks[0]!;
}

function fieldsOf(kinds: readonly Kind[]): Field[] {
  return kinds.map(
    (k, c) => new Field(`c${c}_${k.name}`, k.type(), true, new Map([['sluice.column', k.name]])),
  );
}

function schemaOf(kinds: readonly Kind[]): Schema {
  return new Schema(fieldsOf(kinds), new Map([['sluice.table', 'take-test']]));
}

function batchFrom(schema: Schema, columns: readonly (readonly unknown[])[]): RecordBatch {
  const length = columns[0]?.length ?? 0;
  const children = schema.fields.map((f, c) => columnData(f.type, columns[c]!));
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }),
  );
}

function randomColumns(
  rng: Rng,
  kinds: readonly Kind[],
  length: number,
  nullRate: (c: number) => number,
): unknown[][] {
  return kinds.map((k, c) => Array.from({ length }, () => (rng() < nullRate(c) ? null : k.value(rng))));
}

/** A comparable plain value: lists and bytes as arrays, everything else as Arrow gives it. */
function plain(value: unknown): unknown {
  if (value instanceof Vector) return Array.from(value as Iterable<unknown>, plain);
  if (value instanceof Uint8Array) return Array.from(value);
  return value;
}

/** The naive reference: every cell through Arrow's own per-row `.get()`. */
function naiveTake(source: Table, indices: ArrayLike<number>): unknown[][] {
  return source.schema.fields.map((_, c) => {
    const column = source.getChildAt(c)!;
    return Array.from(indices, (i) => plain(column.get(i)));
  });
}

function cellsOf(batch: RecordBatch): unknown[][] {
  return batch.schema.fields.map((_, c) => {
    const column = batch.getChildAt(c)!;
    return Array.from({ length: batch.numRows }, (_, i) => plain(column.get(i)));
  });
}

function nullsOf(cells: readonly unknown[]): number {
  return cells.filter((v) => v === null).length;
}

/** Checks the result cell by cell, its null counts, and the same after an IPC file round trip. */
function expectTake(source: Table, indices: ArrayLike<number>, result: RecordBatch): void {
  const expected = naiveTake(source, indices);
  expect(result.numRows).toBe(indices.length);
  expect(cellsOf(result)).toEqual(expected);
  for (const [c, column] of result.data.children.entries()) {
    expect(column.nullCount, `nullCount of ${result.schema.fields[c]!.name}`).toBe(nullsOf(expected[c]!));
  }
  const back = tableFromIPC(tableToIPC(new Table([result]), 'file'));
  expect(back.numRows).toBe(indices.length);
  expect(
    naiveTake(
      back,
      Array.from({ length: back.numRows }, (_, i) => i),
    ),
  ).toEqual(expected);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

// ---------------------------------------------------------------------------------------

describe('takeRows: every supported column type', () => {
  for (const kind of KINDS) {
    for (const nullRate of [0, 0.3]) {
      const label = nullRate === 0 ? 'without nulls' : 'with nulls';
      it(`gathers ${kind.name} ${label}, rows in any order and repeated`, () => {
        const rng = seededRandom(0xc0ffee);
        const schema = schemaOf([kind]);
        const batch = batchFrom(
          schema,
          randomColumns(rng, [kind], 40, () => nullRate),
        );
        const source = new Table([batch]);
        const indices = [39, 0, 5, 5, 5, 17, 2, 38, 0, 21, 13, 13, 8, 9, 10, 11, 12];
        expectTake(source, indices, takeRows(source, indices));
        expectTake(source, Int32Array.from(indices), takeRows([batch], Int32Array.from(indices)));
      });
    }
  }

  it('gathers int64 and timestamps bit for bit, including the extremes', () => {
    const extremes = [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 2n ** 53n + 1n, -(2n ** 53n) - 1n];
    const kinds = KINDS.filter((k) => isBigIntBacked(k.type()));
    const schema = schemaOf(kinds);
    const batch = batchFrom(
      schema,
      kinds.map(() => extremes),
    );
    const result = takeRows([batch], [5, 4, 3, 2, 1, 0]);
    for (const c of range(kinds.length)) {
      expect(Array.from(result.data.children[c]!.values as BigInt64Array)).toEqual([...extremes].reverse());
    }
  });

  it('keeps float bit patterns: -0, NaN, infinities', () => {
    const values = [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1.5];
    const kinds = KINDS.filter((k) => k.name === 'float32' || k.name === 'float64');
    const schema = schemaOf(kinds);
    const source = new Table([batchFrom(schema, [values, values])]);
    const result = takeRows(source, [4, 3, 2, 1, 0, 0]);
    expectTake(source, [4, 3, 2, 1, 0, 0], result);
    expect(Object.is(result.getChildAt(0)!.get(4), -0)).toBe(true);
    expect(Object.is(result.getChildAt(1)!.get(5), -0)).toBe(true);
  });

  it('gathers a vector column with nulls both in the list and among its elements', () => {
    const kind = KINDS.find((k) => k.name === 'vector[8]')!;
    const schema = schemaOf([kind]);
    const rows = [
      [1, null, 3, 4, 5, 6, 7, 8],
      null,
      [null, null, null, null, null, null, null, null],
      range(8),
    ];
    const source = new Table([batchFrom(schema, [rows])]);
    const result = takeRows(source, [3, 1, 2, 0, 1]);
    expectTake(source, [3, 1, 2, 0, 1], result);
    const list = result.data.children[0]!;
    expect(list.nullCount).toBe(2);
    expect(list.children[0]!.length).toBe(40);
  });
});

describe('takeRows: buffer layout', () => {
  it('copies vectors whose element buffer is only 4-byte aligned, next to an aligned batch', () => {
    const type = new FixedSizeList(2, new Field('item', new Float32(), true));
    const schema = new Schema([new Field('v', type, true)]);
    const vectorBatch = (elements: Float32Array): RecordBatch => {
      const child = makeData({ type: new Float32(), length: elements.length, nullCount: 0, data: elements });
      const list = makeData({ type, length: elements.length / 2, nullCount: 0, child });
      return new RecordBatch(
        schema,
        makeData({ type: new Struct(schema.fields), length: list.length, children: [list] }),
      );
    };
    const misaligned = Float32Array.from([99, 1, 2, 3, 4, 5, 6]).subarray(1);
    expect(misaligned.byteOffset % 8).toBe(4);
    const batches = [vectorBatch(misaligned), vectorBatch(Float32Array.from([7, 8, 9, 10]))];
    const result = takeRows(batches, [4, 0, 2, 3, 1]);
    expect(cellsOf(result)).toEqual([
      [
        [9, 10],
        [1, 2],
        [5, 6],
        [7, 8],
        [3, 4],
      ],
    ]);
  });
});

describe('takeRows: validity bitmaps', () => {
  it('builds no null bitmap when the source column has no nulls', () => {
    const schema = schemaOf(KINDS);
    const source = new Table([
      batchFrom(
        schema,
        randomColumns(seededRandom(7), KINDS, 30, () => 0),
      ),
    ]);
    const result = takeRows(source, [3, 1, 4, 1, 5, 9, 2, 6]);
    for (const [c, kind] of KINDS.entries()) {
      const column = result.data.children[c]!;
      expect(column.nullCount, kind.name).toBe(0);
      expect(column.nullBitmap?.length ?? 0, kind.name).toBe(0);
    }
  });

  it('builds no null bitmap when every gathered row is valid, even if the source has nulls', () => {
    const kinds = KINDS.filter((k) => !k.name.startsWith('vector'));
    const schema = schemaOf(kinds);
    const columns = randomColumns(seededRandom(8), kinds, 10, () => 0);
    for (const column of columns) column[3] = null;
    const source = new Table([batchFrom(schema, columns)]);
    const result = takeRows(source, [0, 1, 2, 4, 9]);
    expectTake(source, [0, 1, 2, 4, 9], result);
    for (const column of result.data.children) expect(column.nullBitmap?.length ?? 0).toBe(0);
  });

  it('counts exactly the nulls gathered, once per repetition', () => {
    const kinds = KINDS.filter((k) => k.name === 'int32' || k.name === 'utf8' || k.name === 'bool');
    const schema = schemaOf(kinds);
    const source = new Table([
      batchFrom(schema, [
        [1, null, 3],
        ['a', null, 'c'],
        [true, null, false],
      ]),
    ]);
    const result = takeRows(source, [1, 1, 0, 1, 2]);
    for (const column of result.data.children) expect(column.nullCount).toBe(3);
    expectTake(source, [1, 1, 0, 1, 2], result);
  });
});

describe('takeRows: sources', () => {
  it('numbers rows across batches in order', () => {
    const schema = schemaOf(KINDS);
    const rng = seededRandom(11);
    const batches = [12, 7, 20].map((n) =>
      batchFrom(
        schema,
        randomColumns(rng, KINDS, n, () => 0.2),
      ),
    );
    const source = new Table(batches);
    const indices = [0, 11, 12, 18, 19, 38, 5, 25, 25, 13];
    expectTake(source, indices, takeRows(batches, indices));
    expectTake(source, indices, takeRows(source, indices));
  });

  it('skips empty batches when numbering rows', () => {
    const schema = schemaOf(KINDS);
    const rng = seededRandom(12);
    const batches = [0, 5, 0, 0, 4, 0].map((n) =>
      batchFrom(
        schema,
        randomColumns(rng, KINDS, n, () => 0.2),
      ),
    );
    const source = new Table(batches);
    const indices = [8, 0, 4, 5, 3, 7];
    expectTake(source, indices, takeRows(batches, indices));
  });

  it('reads sliced batches (non-zero Data offsets, not byte-aligned) correctly', () => {
    const schema = schemaOf(KINDS);
    const rng = seededRandom(13);
    const batches = [30, 25].map((n) =>
      batchFrom(
        schema,
        randomColumns(rng, KINDS, n, () => 0.3),
      ),
    );
    const sliced = new Table(batches).slice(3, 49);
    expect(sliced.batches[0]!.data.children.every((d) => d.offset === 3)).toBe(true);
    expect(sliced.batches[1]!.data.children.every((d) => d.offset === 0)).toBe(true);
    const inner = new Table(batches).slice(35, 47);
    expect(inner.batches[0]!.data.children.every((d) => d.offset === 5)).toBe(true);
    for (const source of [sliced, inner]) {
      const indices = range(source.numRows).reverse();
      indices.push(0, 0, source.numRows - 1);
      expectTake(source, indices, takeRows(source, indices));
      expectTake(source, indices, takeRows(source.batches, indices));
    }
  });

  it('returns an empty batch with the source schema for empty indices', () => {
    const schema = schemaOf(KINDS);
    const source = new Table([
      batchFrom(
        schema,
        randomColumns(seededRandom(14), KINDS, 5, () => 0.5),
      ),
    ]);
    const result = takeRows(source, []);
    expect(result.numRows).toBe(0);
    expectTake(source, [], result);
    expectTake(source, [], takeRows(source, new Int32Array(0)));
  });

  it('takes nothing from a table with no rows', () => {
    const schema = schemaOf(KINDS);
    const source = new Table([
      batchFrom(
        schema,
        KINDS.map(() => []),
      ),
    ]);
    expect(takeRows(source, []).numRows).toBe(0);
  });

  it('keeps the source schema: names, types, nullability and metadata', () => {
    const fields = [
      new Field('id', new Int64(), false, new Map([['sluice.key', '0']])),
      new Field('body', new Utf8(), true, new Map([['sluice.note', 'free text']])),
    ];
    const schema = new Schema(fields, new Map([['sluice.table', 'events']]));
    const source = new Table([
      batchFrom(schema, [
        [1n, 2n],
        ['a', null],
      ]),
    ]);
    const result = takeRows(source, [1, 0]);
    expect(result.schema.metadata).toEqual(schema.metadata);
    expect(result.schema.fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata])).toEqual(
      fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata]),
    );
    // Arrow's RecordBatch constructor clones the schema's fields; the Data keeps the originals.
    expect((result.data.type as Struct).children).toEqual(fields);
    const back = tableFromIPC(tableToIPC(new Table([result]), 'file'));
    expect(back.schema.fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata])).toEqual(
      fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata]),
    );
  });
});

describe('takeRows: refusals', () => {
  const schema = schemaOf(KINDS.filter((k) => k.name === 'int32'));
  const source = new Table([batchFrom(schema, [[1, 2, 3]])]);

  for (const bad of [-1, 3, 1.5, Number.NaN, 2 ** 32]) {
    it(`rejects index ${bad}, which is not a row of the source`, () => {
      expect(() => takeRows(source, [0, bad])).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    });
  }

  it('rejects an empty batch list, which has no schema', () => {
    expect(() => takeRows([], [])).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('rejects batches whose column types differ from the first batch', () => {
    const other = batchFrom(schemaOf(KINDS.filter((k) => k.name === 'int64')), [[1n]]);
    const mismatched = new RecordBatch(
      schema,
      makeData({
        type: new Struct(schema.fields),
        length: 1,
        nullCount: 0,
        children: [other.data.children[0]!],
      }),
    );
    expect(() => takeRows([source.batches[0]!, mismatched], [0])).toThrow(/c0_int32.*batch 1/);
  });

  const unsupported: [string, DataType, unknown[]][] = [
    ['List<Int32>', new List(new Field('item', new Int32(), true)), [[1, 2], [3]]],
    ['LargeUtf8', new LargeUtf8(), ['a', 'b']],
    ['Dictionary<Utf8>', new Dictionary(new Utf8(), new Int32()), ['a', 'b']],
    ['Struct', new Struct([new Field('x', new Int32(), true)]), [{ x: 1 }, { x: 2 }]],
    ['FixedSizeList<Utf8>', new FixedSizeList(1, new Field('item', new Utf8(), true)), [['a'], ['b']]],
  ];
  for (const [name, type, values] of unsupported) {
    it(`rejects a ${name} column with an INTERNAL error naming the column and type`, () => {
      const s = new Schema([new Field('odd', type, true)]);
      const batch = new RecordBatch(
        s,
        makeData({
          type: new Struct(s.fields),
          length: 2,
          nullCount: 0,
          children: [columnData(type, values)],
        }),
      );
      let caught: unknown;
      try {
        takeRows([batch], [1, 0]);
      } catch (err) {
        caught = err;
      }
      expect(isSluiceError(caught, 'INTERNAL')).toBe(true);
      expect((caught as Error).message).toContain('"odd"');
      expect((caught as Error).message).toContain(String(type));
    });
  }
});

describe('concatBatches', () => {
  it('concatenates a sliced multi-batch table into one batch, rows in order', () => {
    const schema = schemaOf(KINDS);
    const rng = seededRandom(21);
    const batches = [9, 0, 14, 6].map((n) =>
      batchFrom(
        schema,
        randomColumns(rng, KINDS, n, () => 0.25),
      ),
    );
    const source = new Table(batches).slice(2, 27);
    const result = concatBatches(source);
    expectTake(source, range(source.numRows), result);
    expectTake(new Table(batches), range(29), concatBatches(batches));
  });
});

const randomIndices = (rng: Rng, rows: number, n: number): number[] =>
  Array.from({ length: n }, () => int(rng, 0, rows - 1));

/** Stretches of consecutive rows, short and long, as sorted input gathers them. */
function stretches(rng: Rng, rows: number, n: number): number[] {
  const indices: number[] = [];
  while (indices.length < n) {
    const first = int(rng, 0, rows - 1);
    const length = Math.min(int(rng, 1, rng() < 0.5 ? 4 : 200), rows - first, n - indices.length);
    for (let i = 0; i < length; i++) indices.push(first + i);
  }
  return indices;
}

describe('takeRows: randomized against the naive reference', () => {
  const SEED = 0x51_1ce;
  it(`matches Arrow's per-row get() on random sources and indices (seed ${SEED})`, () => {
    console.info(`take.test: randomized seed ${SEED}`);
    const rng = seededRandom(SEED);
    for (let round = 0; round < 150; round++) {
      const kinds = KINDS.filter(() => rng() < 0.5);
      if (kinds.length === 0) continue;
      const schema = schemaOf(kinds);
      const nullRates = kinds.map(() => (rng() < 0.5 ? 0 : rng()));
      const batches = Array.from({ length: int(rng, 1, 4) }, () =>
        batchFrom(
          schema,
          randomColumns(rng, kinds, int(rng, 0, rng() < 0.2 ? 300 : 40), (c) => nullRates[c]!),
        ),
      );
      let source = new Table(batches);
      if (rng() < 0.5 && source.numRows > 0) {
        const begin = int(rng, 0, source.numRows - 1);
        source = source.slice(begin, int(rng, begin, source.numRows));
      }
      const n = source.numRows === 0 ? 0 : int(rng, 0, 240);
      const indices = rng() < 0.5 ? randomIndices(rng, source.numRows, n) : stretches(rng, source.numRows, n);
      const result =
        rng() < 0.5 ? takeRows(source, indices) : takeRows(source.batches, Int32Array.from(indices));
      const context = `seed ${SEED} round ${round}`;
      expect(cellsOf(result), context).toEqual(naiveTake(source, indices));
      for (const [c, column] of result.data.children.entries()) {
        expect(column.nullCount, context).toBe(nullsOf(naiveTake(source, indices)[c]!));
      }
      const back = tableFromIPC(tableToIPC(new Table([result]), 'file'));
      expect(naiveTake(back, range(back.numRows)), context).toEqual(naiveTake(source, indices));
    }
  });
});

/**
 * Every valid key reaches the base and comes back exactly, through every path that puts a
 * key into a Lance filter: point lookup, lookup of many, key-range scan, count, and the
 * merge's delete and upsert. Edge values of each key type, alone and inside composite keys;
 * and composite-key batches far past Lance's limit on a filter's depth (I10, I14).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonRow, jsonRowsToRecordBatch, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { NO_BACKLOG } from '../../shared/lsm/backlog.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { inKeyOrder, readAll } from '../support/rows.ts';

const INT64 = ['-9223372036854775808', '9223372036854775807', 0, -1, -42, 7];
const INT32 = [-2147483648, 2147483647, 0, -1, -42, 7];
const UTF8 = [
  "it's",
  "''",
  'back\\slash',
  'new\nline\r\ttab',
  'nul\0byte',
  '😀 non-BMP',
  '',
  '"quoted"',
  'plain',
];

type Shape = { name: string; key: Array<{ name: string; type: string }>; keys: unknown[][] };

const SHAPES: Shape[] = [
  { name: 'k_int64', key: [{ name: 'k', type: 'int64' }], keys: INT64.map((v) => [v]) },
  { name: 'k_int32', key: [{ name: 'k', type: 'int32' }], keys: INT32.map((v) => [v]) },
  { name: 'k_utf8', key: [{ name: 'k', type: 'utf8' }], keys: UTF8.map((v) => [v]) },
  {
    name: 'k_utf8_int64',
    key: [
      { name: 'tenant', type: 'utf8' },
      { name: 'n', type: 'int64' },
    ],
    keys: UTF8.flatMap((s, i) => [
      [s, INT64[i % INT64.length]!],
      [s, INT64[(i + 1) % INT64.length]!],
    ]),
  },
  {
    name: 'k_int32_utf8',
    key: [
      { name: 'n', type: 'int32' },
      { name: 'tenant', type: 'utf8' },
    ],
    keys: INT32.flatMap((n, i) => [
      [n, UTF8[i]!],
      [n, UTF8[i + 1]!],
    ]),
  },
];

function createBody(shape: Shape) {
  return {
    name: shape.name,
    schema: {
      fields: [
        ...shape.key.map((c) => ({ ...c, nullable: false })),
        { name: 'value', type: 'utf8', nullable: false },
      ],
    },
    primaryKey: shape.key.map((c) => c.name),
    shards: 2,
    settings: { sealDelayMs: 10 },
  };
}

function rowOf(shape: Shape, key: unknown[], value: string): JsonRow {
  return Object.fromEntries([...shape.key.map((c, i) => [c.name, key[i]]), ['value', value]]) as JsonRow;
}

function keyInput(shape: Shape, key: unknown[]): unknown {
  return shape.key.length === 1 ? key[0] : key;
}

describe('keys in Lance filters: every valid value, every read path, composite batches (I10)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  async function flushAndMerge(table: string) {
    for (let shard = 0; shard < 2; shard++) {
      await h.sluice.shards.seal(table, shard);
      await h.sluice.shards.flush(table, shard);
    }
    await h.sluice.tableWork.merge(table);
  }

  async function write(shape: Shape, rows: JsonRow[]) {
    const def = await h.sluice.tables.describe(shape.name);
    await h.sluice.writes.append(shape.name, jsonRowsToRecordBatch(def.schema, rows));
  }

  /** Every read path agrees with `live` (key → value) and finds no deleted key. */
  async function expectExactly(shape: Shape, live: Map<number, string>, gone: number[]) {
    const def = await h.sluice.tables.describe(shape.name);
    const expected = inKeyOrder(
      def.schema,
      [...live].map(([i, value]) => rowOf(shape, shape.keys[i]!, value)),
    );
    const asJson = (rows: JsonRow[]) => JSON.parse(JSON.stringify(rows));
    for (const [i, value] of live) {
      const found = await h.sluice.reads.lookup(shape.name, keyInput(shape, shape.keys[i]!));
      expect(found && tableToJsonRows(def.schema, found)[0]?.value, `lookup of key ${i}`).toBe(value);
    }
    for (const i of gone) {
      expect(await h.sluice.reads.lookup(shape.name, keyInput(shape, shape.keys[i]!)), `key ${i}`).toBeNull();
    }
    const many = await h.sluice.reads.lookupMany(
      shape.name,
      shape.keys.map((k) => keyInput(shape, k)),
    );
    expect(asJson(inKeyOrder(def.schema, tableToJsonRows(def.schema, many.rows)))).toEqual(asJson(expected));
    expect(many.missing).toHaveLength(gone.length);
    expect((await h.sluice.reads.countRows(shape.name)).rows).toBe(live.size);
    expect(asJson(await readAll(h.sluice, shape.name, 4))).toEqual(asJson(expected));
    // A range from the smallest live key takes every row; one from the second drops exactly the first.
    const ranged = async (from: JsonRow) => {
      const page = await h.sluice.reads.scan(shape.name, {
        limit: 1000,
        from: keyInput(
          shape,
          shape.key.map((c) => from[c.name]),
        ),
      });
      return asJson(inKeyOrder(def.schema, tableToJsonRows(def.schema, page.rows)));
    };
    expect(await ranged(expected[0]!)).toEqual(asJson(expected));
    expect(await ranged(expected[1]!)).toEqual(asJson(expected.slice(1)));
  }

  for (const shape of SHAPES) {
    it(`${shape.name}: upserted, overwritten and deleted edge keys read back exactly from the pending rows and the base`, async () => {
      await h.createTable(createBody(shape));
      const live = new Map(shape.keys.map((_, i) => [i, `v1-${i}`]));
      await write(
        shape,
        shape.keys.map((k, i) => rowOf(shape, k, `v1-${i}`)),
      );
      await expectExactly(shape, live, []);
      await flushAndMerge(shape.name);
      await expectExactly(shape, live, []);

      const gone = shape.keys.map((_, i) => i).filter((i) => i % 3 === 1);
      const overwritten = shape.keys.map((_, i) => i).filter((i) => i % 3 === 0);
      await write(
        shape,
        overwritten.map((i) => rowOf(shape, shape.keys[i]!, `v2-${i}`)),
      );
      await h.sluice.writes.delete(
        shape.name,
        gone.map((i) => keyInput(shape, shape.keys[i]!)),
      );
      for (const i of overwritten) live.set(i, `v2-${i}`);
      for (const i of gone) live.delete(i);
      await expectExactly(shape, live, gone);
      await flushAndMerge(shape.name);
      expect(await h.sluice.tableWork.merge(shape.name)).toEqual({
        merged: [],
        rows: 0,
        left: NO_BACKLOG,
        lanceVersion: null,
        rolledBack: [],
      });
      await expectExactly(shape, live, gone);
    });
  }

  it('600 composite keys deleted in one request merge, 1,000 are looked up at once, and a count runs over 1,500 pending keys', async () => {
    const shape: Shape = {
      name: 'composite_batch',
      key: [
        { name: 'tenant', type: 'utf8' },
        { name: 'n', type: 'int64' },
      ],
      keys: Array.from({ length: 3000 }, (_, i) => [`tenant-${i % 7}`, i]),
    };
    await h.createTable(createBody(shape));
    await write(
      shape,
      shape.keys.map((k, i) => rowOf(shape, k, `v1-${i}`)),
    );
    await flushAndMerge(shape.name);
    const deleted = shape.keys.slice(0, 600).map((k) => keyInput(shape, k));
    await h.sluice.writes.delete(shape.name, deleted);
    await write(
      shape,
      shape.keys.slice(600, 1500).map((k, i) => rowOf(shape, k, `v2-${600 + i}`)),
    );
    expect((await h.sluice.reads.countRows(shape.name)).rows).toBe(2400);
    await flushAndMerge(shape.name);
    expect((await h.parts.bases.read(shape.name)).mergedThrough).toEqual({ '0': 2, '1': 2 });
    const asked = shape.keys.slice(100, 1100).map((k) => keyInput(shape, k));
    const found = await h.sluice.reads.lookupMany(shape.name, asked);
    // 100–599 were deleted; 600–1099 were overwritten.
    const def = await h.sluice.tables.describe(shape.name);
    expect(tableToJsonRows(def.schema, found.rows).map((r) => r.value)).toEqual(
      Array.from({ length: 500 }, (_, i) => `v2-${600 + i}`),
    );
    expect(found.missing).toEqual(asked.slice(0, 500));
    expect((await h.sluice.reads.countRows(shape.name)).rows).toBe(2400);
  });
});

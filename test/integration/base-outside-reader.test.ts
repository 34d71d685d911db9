/**
 * The base as another engine sees it: LanceDB opened straight on the store's directory,
 * with nothing of Sluice's code on the read path.
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { fullRow, sampleCreate } from '../support/sample-table.ts';

const { lancedb, arrow } = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

describe('an outside reader of the base dataset', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  async function mergedGeneration(rows: Record<string, unknown>[], deletes: number[] = []) {
    const def = await h.sluice.tables.describe('events');
    const { jsonRowsToRecordBatch } = await import('../../shared/arrow/json-rows.ts');
    if (rows.length > 0)
      await h.sluice.writes.append('events', jsonRowsToRecordBatch(def.schema, rows as never));
    if (deletes.length > 0) await h.sluice.writes.delete('events', deletes);
    for (let shard = 0; shard < def.shards; shard++) {
      await h.sluice.shards.seal('events', shard);
      await h.sluice.shards.flush('events', shard);
    }
    await h.sluice.tableWork.merge('events');
  }

  it('sees exactly the merged rows, the declared columns and types, the key and its index, and finds the nearest vector', async () => {
    await h.createTable(sampleCreate({ shards: 2 }));
    await mergedGeneration(Array.from({ length: 20 }, (_, i) => fullRow(i + 1)));
    const overwritten = { ...fullRow(7), label: 'overwritten', emb: [100, 100, 100] };
    await mergedGeneration([overwritten, fullRow(21)], [3, 4, 15]);
    await mergedGeneration([], [21]);

    const db = await lancedb.connect(`${h.dir.path}/tables/events`);
    expect(await db.tableNames()).toEqual(['base']);
    const table = await db.openTable('base');

    const schema = await table.schema();
    expect(schema.fields.map((f) => f.name)).toEqual([
      'id',
      'count',
      'big',
      'ratio',
      'small',
      'ok',
      'label',
      'blob',
      'at',
      'at_us',
      'emb',
    ]);
    const field = (name: string) => schema.fields.find((f) => f.name === name)!;
    expect(
      Object.fromEntries(schema.fields.map((f) => [f.name, `${f.type}${f.nullable ? '?' : ''}`])),
    ).toEqual({
      id: 'Int64',
      count: 'Int32',
      big: 'Int64?',
      ratio: 'Float64?',
      small: 'Float32?',
      ok: 'Bool?',
      label: 'Utf8?',
      blob: 'Binary?',
      at: 'Timestamp<MILLISECOND>?',
      at_us: 'Timestamp<MICROSECOND>?',
      emb: 'FixedSizeList[3]<Float32>?',
    });
    expect(arrow.DataType.isFixedSizeList(field('emb').type)).toBe(true);
    expect(arrow.DataType.isTimestamp(field('at').type)).toBe(true);
    expect(field('id').metadata.get('lance-schema:unenforced-primary-key:position')).toBe('1');
    expect(
      schema.fields.filter((f) => f.metadata.has('lance-schema:unenforced-primary-key:position')),
    ).toHaveLength(1);

    const indices = await table.listIndices();
    expect(indices).toEqual([expect.objectContaining({ columns: ['id'], indexType: 'BTree' })]);

    const rows = (await table.query().toArray()) as Array<Record<string, unknown>>;
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    expect(ids).toEqual([1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20]);
    const seven = rows.find((r) => Number(r.id) === 7)!;
    expect(seven.label).toBe('overwritten');
    expect(Array.from(seven.emb as Iterable<number>)).toEqual([100, 100, 100]);
    const twelve = rows.find((r) => Number(r.id) === 12)!;
    expect(twelve).toMatchObject({ count: 12, label: fullRow(12).label, ok: true, ratio: 12 / 7 });
    expect(twelve.big).toBe(2n ** 60n + 12n);
    expect(Number(twelve.at)).toBe(1_700_000_000_000 + 12);
    expect(Buffer.from(twelve.blob as Uint8Array)).toEqual(Buffer.from([12, 0, 255]));

    const nearest = (await table.vectorSearch([9.1, -9.1, 0.25]).limit(1).toArray()) as Array<
      Record<string, unknown>
    >;
    expect(Number(nearest[0]!.id)).toBe(9);
    const nearOverwrite = (await table.vectorSearch([99, 99, 99]).limit(1).toArray()) as Array<
      Record<string, unknown>
    >;
    expect(Number(nearOverwrite[0]!.id)).toBe(7);
    expect(await table.countRows()).toBe(17);
    expect(await table.countRows('id = 15')).toBe(0);
  });
});

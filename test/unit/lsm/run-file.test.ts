import { Table, tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyCodecFor } from '../../../shared/arrow/key-codec.ts';
import { buildRunFile, KEY_COLUMN } from '../../../shared/lsm/run-file.ts';
import { byPrimaryKey, byRowId } from '../../../shared/lsm/run-keys.ts';
import { OP_COLUMN, OP_DELETE, OP_UPSERT, walSchema } from '../../../shared/wal/wal-entry.ts';
import { deletes, kvSchema, upserts, walEntries } from '../../support/wal-rows.ts';

const codec = keyCodecFor(kvSchema);
const schema = walSchema(kvSchema);

describe('run files (L0)', () => {
  it('sorts by key, keeps the newest write per key, and keeps a delete as a tombstone', () => {
    const run = buildRunFile(
      byPrimaryKey(codec),
      schema,
      walEntries([
        upserts([
          { id: 3, v: 'old' },
          { id: 1, v: 'a' },
        ]),
        upserts([{ id: 3, v: 'new' }]),
        deletes([1]),
        upserts([{ id: 2, v: 'b' }]),
      ]),
    );
    const table = tableFromIPC(run.body);
    expect(table.getChild('id')?.toArray()).toEqual(Int32Array.of(1, 2, 3));
    expect([...(table.getChild('v') ?? [])]).toEqual([null, 'b', 'new']);
    expect(Array.from(table.getChild(OP_COLUMN)?.toArray() ?? [])).toEqual([OP_DELETE, OP_UPSERT, OP_UPSERT]);
    expect(run).toMatchObject({ rows: 3, tombstones: 1 });
    expect(run.minKey).toEqual(codec.encodeRows(upserts([{ id: 1, v: null }]))[0]);
    expect(run.maxKey).toEqual(codec.encodeRows(upserts([{ id: 3, v: null }]))[0]);
    expect(table.getChild(KEY_COLUMN)?.get(2)).toEqual(run.maxKey);
  });

  it('I13: the same rows give the same bytes, so a retried flush rewrites the same artifact', () => {
    const rows = () =>
      walEntries([
        upserts([
          { id: 5, v: 'x' },
          { id: 4, v: 'y' },
        ]),
        deletes([5]),
      ]);
    const keying = byPrimaryKey(codec);
    expect(buildRunFile(keying, schema, rows()).body).toEqual(buildRunFile(keying, schema, rows()).body);
  });

  it('no rows: an empty run with no key range', () => {
    const run = buildRunFile(byPrimaryKey(codec), schema, []);
    expect(run).toMatchObject({ rows: 0, tombstones: 0, minKey: null, maxKey: null });
    expect(tableFromIPC(run.body).numRows).toBe(0);
  });

  it("I13: an append-only table's run keeps every row, identical ones included, keyed by (shard, seq, row)", () => {
    const same = { id: 7, v: 'same' };
    const entries = () => [
      { seq: 4, table: new Table([upserts([same, same])]) },
      { seq: 2 ** 40 + 3, table: new Table([upserts([same])]) },
    ];
    const run = buildRunFile(byRowId(3), schema, entries());
    const table = tableFromIPC(run.body);
    expect(run).toMatchObject({ rows: 3, tombstones: 0 });
    expect([...(table.getChild('v') ?? [])]).toEqual(['same', 'same', 'same']);
    const ids = [...(table.getChild(KEY_COLUMN) ?? [])].map((k: Uint8Array) =>
      Buffer.from(k).toString('hex'),
    );
    expect(ids).toEqual([
      '0003' + '0000000000000004' + '00000000',
      '0003' + '0000000000000004' + '00000001',
      '0003' + '0000010000000003' + '00000000',
    ]);
    expect(buildRunFile(byRowId(3), schema, entries()).body).toEqual(run.body);
  });
});

import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyCodecFor } from '../../../shared/arrow/key-codec.ts';
import { buildRunFile, KEY_COLUMN, lastWritePerKey } from '../../../shared/lsm/run-file.ts';
import { OP_COLUMN, OP_DELETE, OP_UPSERT, walSchema } from '../../../shared/wal/wal-entry.ts';
import { deletes, kvSchema, upserts } from '../../support/wal-rows.ts';

const codec = keyCodecFor(kvSchema);
const schema = walSchema(kvSchema);

describe('run files (L0)', () => {
  it('keeps the last position of each key, in key order', () => {
    const key = (n: number) => Uint8Array.of(n);
    expect(Array.from(lastWritePerKey([key(2), key(1), key(2), key(3), key(1)]))).toEqual([4, 2, 3]);
    expect(Array.from(lastWritePerKey([]))).toEqual([]);
  });

  it('orders keys exactly as comparing their bytes, whatever prefix, length or zero bytes they share', () => {
    let seed = 12;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    // Few byte values and a long shared prefix: many keys tie on the words read ahead.
    const prefix = [7, 7, 7, 0];
    for (let round = 0; round < 50; round++) {
      const keys = Array.from({ length: 200 }, () =>
        Uint8Array.from([
          ...prefix.slice(0, random(5)),
          ...Array.from({ length: random(14) }, () => random(3)),
        ]),
      );
      const expected = keys
        .map((key, position) => ({ key, position }))
        .sort((a, b) => Buffer.compare(a.key, b.key) || a.position - b.position)
        .filter((row, i, rows) => i === rows.length - 1 || Buffer.compare(row.key, rows[i + 1]!.key) !== 0)
        .map((row) => row.position);
      expect(Array.from(lastWritePerKey(keys))).toEqual(expected);
    }
  });

  it('sorts by key, keeps the newest write per key, and keeps a delete as a tombstone', () => {
    const run = buildRunFile(codec, schema, [
      upserts([
        { id: 3, v: 'old' },
        { id: 1, v: 'a' },
      ]),
      upserts([{ id: 3, v: 'new' }]),
      deletes([1]),
      upserts([{ id: 2, v: 'b' }]),
    ]);
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
    const rows = () => [
      upserts([
        { id: 5, v: 'x' },
        { id: 4, v: 'y' },
      ]),
      deletes([5]),
    ];
    expect(buildRunFile(codec, schema, rows()).body).toEqual(buildRunFile(codec, schema, rows()).body);
  });

  it('no rows: an empty run with no key range', () => {
    const run = buildRunFile(codec, schema, []);
    expect(run).toMatchObject({ rows: 0, tombstones: 0, minKey: null, maxKey: null });
    expect(tableFromIPC(run.body).numRows).toBe(0);
  });
});

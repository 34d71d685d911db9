import { Table, tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { keyCodecFor } from '../../../shared/arrow/key-codec.ts';
import { buildRunFile } from '../../../shared/lsm/run-file.ts';
import { byPrimaryKey } from '../../../shared/lsm/run-keys.ts';
import { fileRun, find, seek, walRun } from '../../../shared/read/sorted-run.ts';
import { walSchema } from '../../../shared/wal/wal-entry.ts';
import { deletes, kvSchema, upserts } from '../../support/wal-rows.ts';

const codec = keyCodecFor(kvSchema);
const keying = byPrimaryKey(codec);
const keyOf = (id: number) => codec.encodeRows(upserts([{ id, v: null }]))[0]!;

/** One WAL entry: 30 and 10 written, 30 written again, then 20 deleted. */
const entry = () => ({
  seq: 1,
  table: new Table([
    upserts([
      { id: 30, v: 'a' },
      { id: 10, v: 'b' },
      { id: 30, v: 'c' },
    ]),
    deletes([20]),
  ]),
});

describe('sorted runs', () => {
  it('a WAL entry as a run: keys in order, the newest write per key, deletes marked', () => {
    const run = walRun(keying, entry());
    expect(run.size).toBe(3);
    expect([0, 1, 2].map((i) => run.key(i))).toEqual([keyOf(10), keyOf(20), keyOf(30)]);
    expect([0, 1, 2].map((i) => run.isDelete(i))).toEqual([false, true, false]);
    // Row 2 of the entry ("c") is the newest write of 30, not row 0.
    expect(run.position(2)).toBe(2);
  });

  it('an L0 file read back is the same run as the WAL rows it was built from', () => {
    const wal0 = entry();
    const file = fileRun(tableFromIPC(buildRunFile(keying, walSchema(kvSchema), [wal0]).body));
    const wal = walRun(keying, wal0);
    expect(file.size).toBe(wal.size);
    for (let i = 0; i < wal.size; i++) {
      expect(file.key(i)).toEqual(wal.key(i));
      expect(file.isDelete(i)).toBe(wal.isDelete(i));
      expect(file.position(i)).toBe(i);
    }
  });

  it('seek finds the first key at or above (strict: above) the one asked; find only an exact key', () => {
    const run = walRun(keying, entry());
    expect(seek(run, keyOf(5))).toBe(0);
    expect(seek(run, keyOf(20))).toBe(1);
    expect(seek(run, keyOf(20), true)).toBe(2);
    expect(seek(run, keyOf(25))).toBe(2);
    expect(seek(run, keyOf(99))).toBe(3);
    expect(find(run, keyOf(30))).toBe(2);
    expect(find(run, keyOf(25))).toBeNull();
    expect(find(run, keyOf(99))).toBeNull();
  });
});

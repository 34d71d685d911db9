import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch, tableToJsonRows } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../../shared/arrow/schema.ts';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import { tableWalKey } from '../../../shared/table/paths.ts';
import { ENTRY_HEAD_BYTES, EntryHeads } from '../../../shared/wal/entry-heads.ts';
import { OP_UPSERT, type WalWrite } from '../../../shared/wal/wal-entry.ts';
import { encodeSectionedEntry, readSection } from '../../../shared/wal/wal-sections.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

const schema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'label', type: 'utf8', nullable: true },
    ],
  },
  ['id'],
);

/** An entry of ten rows on each of four shards, as a group of small writes makes. */
function fourShardEntry() {
  const byShard = new Map<number, WalWrite[]>(
    [0, 1, 2, 3].map((shard) => {
      const rows = Array.from({ length: 10 }, (_, i) => ({ id: shard * 100 + i, label: `s${shard}-${i}` }));
      return [shard, [{ batch: jsonRowsToRecordBatch(schema, rows), op: OP_UPSERT }]];
    }),
  );
  return { ...encodeSectionedEntry(schema, byShard, 'entry'), byShard };
}

describe('EntryHeads: one GET of a table-lane entry for every shard’s section (docs/table-wal-lane.md §12)', () => {
  let dir: TempDir;
  let store: FaultyStore;
  const key = tableWalKey('t', 7);

  beforeEach(async () => {
    dir = await createTempDir('entry-heads');
    store = new FaultyStore(dir.fsStore());
  });
  afterEach(() => dir.cleanup());

  it('every section of a small entry comes from one GET, with the rows a range GET of it gives', async () => {
    const { body, sections } = fourShardEntry();
    await store.put(key, body);
    const heads = new EntryHeads();
    for (const section of sections) {
      const byHead = await readSection(store, key, section, schema, { heads });
      const byRange = await readSection(store, key, section, schema);
      expect(tableToJsonRows(schema, byHead)).toEqual(tableToJsonRows(schema, byRange));
      expect(byHead.numRows).toBe(10);
    }
    // One GET for the head, and one per section for the range GETs it is compared with.
    expect(store.calls.get).toBe(1 + sections.length);
  });

  it('reads of one entry at once share one GET', async () => {
    const { body, sections } = fourShardEntry();
    await store.put(key, body);
    store.inject({ op: 'get', latencyMs: 50 });
    const heads = new EntryHeads();
    const tables = await Promise.all(sections.map((s) => readSection(store, key, s, schema, { heads })));
    expect(tables.map((t) => t.numRows)).toEqual([10, 10, 10, 10]);
    expect(store.calls.get).toBe(1);
  });

  it('a range past the head is a range GET of its own, never kept', async () => {
    const bytes = randomBytes(ENTRY_HEAD_BYTES + 4096);
    await store.put(key, bytes);
    const heads = new EntryHeads();
    const range = { start: ENTRY_HEAD_BYTES - 10, end: ENTRY_HEAD_BYTES + 100 };
    for (let i = 1; i <= 2; i++) {
      const read = await heads.read(store, key, range);
      expect(Buffer.from(read!.body).equals(bytes.subarray(range.start, range.end))).toBe(true);
      expect(read!.size).toBe(bytes.length);
      expect(store.calls.get).toBe(i);
    }
    // A range inside the head of the same large entry reads the head, and keeps it.
    const inside = await heads.read(store, key, { start: 5, end: 50 });
    expect(Buffer.from(inside!.body).equals(bytes.subarray(5, 50))).toBe(true);
    await heads.read(store, key, { start: 1000, end: 2000 });
    expect(store.calls.get).toBe(3);
  });

  it('a missing entry or a failed read is asked of the store again', async () => {
    const heads = new EntryHeads();
    expect(await heads.read(store, key, { start: 0, end: 10 })).toBeNull();
    const bytes = randomBytes(100);
    await store.put(key, bytes);
    store.inject({ op: 'get', fault: 'fail', times: 1 });
    await expect(heads.read(store, key, { start: 0, end: 10 })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    const read = await heads.read(store, key, { start: 0, end: 10 });
    expect(Buffer.from(read!.body).equals(bytes.subarray(0, 10))).toBe(true);
    expect(store.calls.get).toBe(3);
  });

  it('a caller that gives up stops waiting; the read it shared goes on for the others', async () => {
    const bytes = randomBytes(100);
    await store.put(key, bytes);
    store.inject({ op: 'get', latencyMs: 100 });
    const heads = new EntryHeads();
    const leaving = new AbortController();
    const left = heads.read(store, key, { start: 0, end: 10 }, leaving.signal);
    const staying = heads.read(store, key, { start: 10, end: 20 });
    leaving.abort();
    await expect(left).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Buffer.from((await staying)!.body).equals(bytes.subarray(10, 20))).toBe(true);
    expect(store.calls.get).toBe(1);
  });

  it('an entry shorter than the section asked for gives fewer bytes, and its section is DATA_CORRUPT', async () => {
    const { body, sections } = fourShardEntry();
    const last = sections.at(-1)!;
    await store.put(key, body.subarray(0, last.end - 1));
    const heads = new EntryHeads();
    await expect(readSection(store, key, last, schema, { heads })).rejects.toMatchObject({
      code: 'DATA_CORRUPT',
    });
  });

  it('keeps heads within its bytes, dropping the least recently used', async () => {
    const first = randomBytes(600);
    const second = randomBytes(600);
    const other = tableWalKey('t', 8);
    await store.put(key, first);
    await store.put(other, second);
    const heads = new EntryHeads(1000);
    await heads.read(store, key, { start: 0, end: 10 });
    await heads.read(store, other, { start: 0, end: 10 });
    await heads.read(store, other, { start: 10, end: 20 });
    expect(store.calls.get).toBe(2);
    const again = await heads.read(store, key, { start: 0, end: 10 });
    expect(Buffer.from(again!.body).equals(first.subarray(0, 10))).toBe(true);
    expect(store.calls.get).toBe(3);
  });
});

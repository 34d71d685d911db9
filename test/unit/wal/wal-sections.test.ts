import { type Table, tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch, tableToJsonRows } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema, type TableSchema } from '../../../shared/arrow/schema.ts';
import { takeRows } from '../../../shared/arrow/take.ts';
import type { EntrySection } from '../../../shared/redis/lane-sections.ts';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import { tableWalKey } from '../../../shared/table/paths.ts';
import { evolveSchema, parseSchemaChange } from '../../../shared/table/schema-change.ts';
import {
  decodeWalEntry,
  encodeEntryFile,
  encodeHole,
  encodeWalEntry,
  OP_COLUMN,
  OP_DELETE,
  OP_UPSERT,
  type Op,
  schemaVersionOf,
  type WalWrite,
} from '../../../shared/wal/wal-entry.ts';
import {
  decodeSection,
  encodeSectionedEntry,
  parseEntryFooter,
  readEntryFooter,
  readSection,
  splitSections,
} from '../../../shared/wal/wal-sections.ts';
import { seededRandom } from '../../support/random.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

const schema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'label', type: 'utf8', nullable: true },
      { name: 'ratio', type: 'float64', nullable: true },
      { name: 'ok', type: 'bool', nullable: true },
      { name: 'emb', type: 'vector[float32, 3]', nullable: true },
    ],
  },
  ['id'],
);

const TAIL_BYTES = 64 * 1024;

type Row = Record<string, unknown>;

function write(rows: Row[], op: Op, of: TableSchema = schema): WalWrite {
  return { batch: jsonRowsToRecordBatch(of, rows), op };
}

/** Rows as JSON, each with its op, as a shard's flush would see them. */
function rowsWithOps(table: Table, of: TableSchema = schema): Row[] {
  const ops = [...(table.getChild(OP_COLUMN) ?? [])];
  return tableToJsonRows(of, table).map((row, i) => ({ ...row, [OP_COLUMN]: ops[i] }));
}

function expectedRows(writes: readonly WalWrite[]): Row[] {
  return writes.flatMap((w) =>
    tableToJsonRows(schema, w.batch).map((row) => ({ ...row, [OP_COLUMN]: w.op })),
  );
}

function wholeTable(body: Uint8Array): Table {
  const entry = decodeWalEntry(body, 1);
  if (entry.kind !== 'rows') throw new Error('expected rows');
  return entry.table;
}

function tailOf(body: Uint8Array): Uint8Array {
  return body.subarray(Math.max(0, body.length - TAIL_BYTES));
}

function randomRow(random: () => number, id: number): Row {
  const maybe = <T>(value: T) => (random() < 0.3 ? null : value);
  return {
    id,
    label: maybe(`label-${id}-${Math.floor(random() * 1000)}`),
    ratio: maybe(random() * 100),
    ok: maybe(random() < 0.5),
    emb: maybe([random(), -random(), id]),
  };
}

/**
 * A shard's writes: one write of 1–300 rows, many small ones (the combine rule's case), or a
 * few of any size; each an upsert or a delete (a key and nulls, as in the WAL).
 */
function randomWrites(random: () => number, nextId: () => number): WalWrite[] {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const mode = random();
  const sizes =
    mode < 0.3
      ? [int(1, 300)]
      : mode < 0.7
        ? Array.from({ length: int(2, 20) }, () => int(1, 10))
        : Array.from({ length: int(1, 5) }, () => int(1, 300));
  return sizes.map((size) => {
    const ids = Array.from({ length: size }, nextId);
    return random() < 0.25
      ? write(
          ids.map((id) => ({ id })),
          OP_DELETE,
        )
      : write(
          ids.map((id) => randomRow(random, id)),
          OP_UPSERT,
        );
  });
}

function randomShards(random: () => number): Map<number, WalWrite[]> {
  let id = 0;
  const nextId = () => id++;
  const count = 1 + Math.floor(random() * 16);
  const shards = new Set<number>();
  while (shards.size < count) shards.add(Math.floor(random() * 32));
  // Map order is the order drawn, not shard order: the entry must sort them.
  return new Map([...shards].map((shard) => [shard, randomWrites(random, nextId)]));
}

describe('sectioned WAL entries (docs/table-wal-lane.md §2)', () => {
  it('a section decoded by its range equals the whole file’s rows of that shard, over random shard sets, batch sizes and ops', () => {
    let combined = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(seed);
      const byShard = randomShards(random);
      const { body, sections, schemaVersion } = encodeSectionedEntry(schema, byShard, `entry-${seed}`);
      const shards = [...byShard.keys()].sort((a, b) => a - b);
      expect(
        sections.map((s) => s.shard),
        `seed ${seed}`,
      ).toEqual(shards);
      expect(schemaVersion).toBe(1);

      const whole = wholeTable(body);
      const allRows = rowsWithOps(whole);
      const writes = shards.flatMap((shard) => byShard.get(shard)!);
      if (whole.batches.length < writes.length) combined++;
      let at = 0;
      for (const section of sections) {
        const expected = expectedRows(byShard.get(section.shard)!);
        const inWhole = allRows.slice(at, at + section.rows);
        at += section.rows;
        expect(section.rows, `seed ${seed} shard ${section.shard}`).toBe(expected.length);
        expect(inWhole, `seed ${seed} shard ${section.shard}`).toEqual(expected);
        expect(rowsWithOps(decodeSection(schema, body.subarray(section.start, section.end)))).toEqual(
          inWhole,
        );
      }
      expect(at).toBe(allRows.length);

      expect(parseEntryFooter(tailOf(body), body.length)).toEqual({
        kind: 'entry',
        entryId: `entry-${seed}`,
        schemaVersion: 1,
        sections,
      });
      expect(tableFromIPC(body).numRows).toBe(allRows.length);
    }
    expect(combined).toBeGreaterThan(0);
  });

  it('a request’s rows of each shard named by index (WalWrite.rows) make the sections those rows copied out make', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(1000 + seed);
      let id = 0;
      const shardCount = 1 + Math.floor(random() * 16);
      const named = new Map<number, WalWrite[]>();
      const copied = new Map<number, WalWrite[]>();
      for (const request of randomWrites(random, () => id++)) {
        const rowsOf = new Map<number, number[]>();
        for (let row = 0; row < request.batch.numRows; row++) {
          const shard = Math.floor(random() * shardCount);
          rowsOf.set(shard, [...(rowsOf.get(shard) ?? []), row]);
        }
        for (const [shard, rows] of rowsOf) {
          const picked = Int32Array.from(rows);
          named.set(shard, [...(named.get(shard) ?? []), { ...request, rows: picked }]);
          const batch = takeRows([request.batch], picked);
          copied.set(shard, [...(copied.get(shard) ?? []), { batch, op: request.op }]);
        }
      }
      const byName = encodeSectionedEntry(schema, named, `named-${seed}`);
      const byCopy = encodeSectionedEntry(schema, copied, `copied-${seed}`);
      // Rows named by index are copied out either way: gathered once, a batch per section.
      expect(wholeTable(byName.body).batches.length).toBe(byName.sections.length);
      expect(
        byName.sections.map((s) => [s.shard, s.rows]),
        `seed ${seed}`,
      ).toEqual(byCopy.sections.map((s) => [s.shard, s.rows]));
      for (const [i, section] of byName.sections.entries()) {
        const copy = byCopy.sections[i]!;
        const rows = rowsWithOps(decodeSection(schema, byName.body.subarray(section.start, section.end)));
        expect(rows, `seed ${seed} shard ${section.shard}`).toEqual(expectedRows(copied.get(section.shard)!));
        expect(rows).toEqual(rowsWithOps(decodeSection(schema, byCopy.body.subarray(copy.start, copy.end))));
      }
    }
  });

  it('a shard lane’s entry of a write naming some rows of its batch holds those rows only', () => {
    const request = write(
      [0, 1, 2, 3, 4].map((id) => ({ id, label: `l${id}` })),
      OP_UPSERT,
    );
    const rows = rowsWithOps(
      wholeTable(encodeWalEntry(schema, [{ ...request, rows: Int32Array.from([1, 4]) }])),
    );
    expect(rows.map((r) => [r.id, r.label])).toEqual([
      [1, 'l1'],
      [4, 'l4'],
    ]);
  });

  it('a whole entry split by its sections gives each shard the rows its section decodes to', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { body, sections } = encodeSectionedEntry(schema, randomShards(seededRandom(seed)));
      const split = splitSections(wholeTable(body))!;
      expect([...split.keys()], `seed ${seed}`).toEqual(sections.map((s) => s.shard));
      for (const section of sections) {
        expect(rowsWithOps(split.get(section.shard)!), `seed ${seed} shard ${section.shard}`).toEqual(
          rowsWithOps(decodeSection(schema, body.subarray(section.start, section.end))),
        );
      }
    }
    expect(splitSections(tableFromIPC(encodeHole(1)))).toEqual(new Map());
    expect(splitSections(wholeTable(encodeWalEntry(schema, [write([{ id: 1 }], OP_DELETE)])))).toBeNull();
  });

  it('ranges run from a first batch’s continuation marker to the end of the last body, sections back to back', () => {
    const { body, sections } = encodeSectionedEntry(schema, randomShards(seededRandom(99)));
    const view = new DataView(body.buffer, body.byteOffset);
    for (const [i, section] of sections.entries()) {
      expect(view.getInt32(section.start, true)).toBe(-1);
      if (i > 0) expect(section.start).toBe(sections[i - 1]!.end);
    }
  });

  it('a one-section entry: one shard, its section every batch of the file', () => {
    const writes = [write([randomRow(seededRandom(1), 1)], OP_UPSERT)];
    const { body, sections } = encodeSectionedEntry(schema, new Map([[5, writes]]), 'one');
    expect(sections).toEqual([{ shard: 5, start: 8, end: expect.any(Number), rows: 1 }]);
    expect(rowsWithOps(decodeSection(schema, body.subarray(sections[0]!.start, sections[0]!.end)))).toEqual(
      expectedRows(writes),
    );
    expect(rowsWithOps(wholeTable(body))).toEqual(expectedRows(writes));
  });

  it('a shard with no rows gets no section', () => {
    const empty = {
      ...write([{ id: 1 }], OP_UPSERT),
      batch: write([{ id: 1 }], OP_UPSERT).batch.slice(0, 0),
    };
    const { sections } = encodeSectionedEntry(
      schema,
      new Map([
        [0, [empty]],
        [1, [write([{ id: 1 }], OP_DELETE)]],
        [2, []],
      ]),
    );
    expect(sections.map((s) => [s.shard, s.rows])).toEqual([[1, 1]]);
  });

  describe('an entry under schema version 2 (a column added)', () => {
    const v1 = parseTableSchema(
      {
        fields: [
          { name: 'id', type: 'int64' },
          { name: 'label', type: 'utf8', nullable: true },
        ],
      },
      ['id'],
    );
    const v2 = evolveSchema(
      v1,
      parseSchemaChange({ add: [{ name: 'extra', type: 'int32', nullable: true }] }, v1)!,
    );
    const entry = encodeSectionedEntry(
      v2,
      new Map([
        [
          3,
          [
            write([{ id: 1, label: 'old' }], OP_UPSERT, v1),
            write([{ id: 2, label: 'new', extra: 7 }], OP_UPSERT, v2),
          ],
        ],
        [1, [write([{ id: 3, extra: 8 }], OP_DELETE, v2)]],
      ]),
    );

    it('says version 2, and each section decodes with that version’s schema', () => {
      expect(v2.version).toBe(2);
      expect(entry.schemaVersion).toBe(2);
      expect(parseEntryFooter(entry.body, entry.body.length)).toMatchObject({ schemaVersion: 2 });
      const [first, second] = entry.sections.map((s) =>
        decodeSection(v2, entry.body.subarray(s.start, s.end)),
      );
      expect(schemaVersionOf(first!)).toBe(2);
      expect(rowsWithOps(first!, v2)).toEqual([{ id: 3, label: null, extra: 8, [OP_COLUMN]: OP_DELETE }]);
      expect(rowsWithOps(second!, v2)).toEqual([
        { id: 1, label: 'old', extra: null, [OP_COLUMN]: OP_UPSERT },
        { id: 2, label: 'new', extra: 7, [OP_COLUMN]: OP_UPSERT },
      ]);
    });

    it('decoded with version 1’s schema, a column fewer, it is DATA_CORRUPT, not other columns read as rows', () => {
      const section = entry.sections[1]!;
      expect(() => decodeSection(v1, entry.body.subarray(section.start, section.end))).toThrow(
        expect.objectContaining({ code: 'DATA_CORRUPT' }),
      );
    });
  });

  it('a hole’s footer says hole', () => {
    const hole = encodeHole(12);
    expect(parseEntryFooter(hole, hole.length)).toEqual({ kind: 'hole' });
  });

  it('a shard lane’s entry (encodeWalEntry) has no sections', () => {
    const body = encodeWalEntry(schema, [write([{ id: 1 }], OP_DELETE)], 'shard-lane');
    expect(parseEntryFooter(tailOf(body), body.length)).toEqual({
      kind: 'entry',
      entryId: 'shard-lane',
      schemaVersion: 1,
      sections: null,
    });
  });

  it('a footer that starts before the last 64 KiB asks for the bytes from its start', () => {
    const { body, sections } = manySections();
    const short = parseEntryFooter(tailOf(body), body.length);
    expect(short).toEqual({ kind: 'short', from: expect.any(Number) });
    if (short.kind !== 'short') throw new Error('expected short');
    expect(body.length - short.from).toBeGreaterThan(TAIL_BYTES);
    expect(parseEntryFooter(body.subarray(short.from), body.length)).toMatchObject({ sections });
  });

  describe('damage is DATA_CORRUPT', () => {
    const { body, sections } = encodeSectionedEntry(
      schema,
      new Map([[0, Array.from({ length: 3 }, (_, i) => write([randomRow(seededRandom(i), i)], OP_UPSERT))]]),
    );
    const { start, end } = sections[0]!;

    it('a section cut short, or garbled in its message header', () => {
      expect(() => decodeSection(schema, body.subarray(start, end - 1))).toThrow(
        expect.objectContaining({ code: 'DATA_CORRUPT' }),
      );
      const garbled = body.slice(start, end);
      garbled.fill(0xab, 8, 40);
      expect(() => decodeSection(schema, garbled)).toThrow(expect.objectContaining({ code: 'DATA_CORRUPT' }));
      const misaligned = body.slice(start + 8, end);
      expect(() => decodeSection(schema, misaligned)).toThrow(
        expect.objectContaining({ code: 'DATA_CORRUPT' }),
      );
    });

    it('a footer garbled, or a tail that is no Arrow file’s end', () => {
      const garbled = body.slice();
      const footerLength = new DataView(garbled.buffer).getInt32(garbled.length - 10, true);
      garbled.fill(0xab, garbled.length - 10 - footerLength, garbled.length - 10);
      expect(() => parseEntryFooter(garbled, garbled.length)).toThrow(
        expect.objectContaining({ code: 'DATA_CORRUPT' }),
      );
      const cut = body.subarray(0, body.length - 3);
      expect(() => parseEntryFooter(cut, cut.length)).toThrow(
        expect.objectContaining({ code: 'DATA_CORRUPT' }),
      );
    });

    it('sections that do not name the file’s batches in turn', () => {
      const batches = wholeTable(body).batches;
      for (const layout of ['[[0,0,5,3]]', '[[0,1,2,3]]', '[[1,0,1,1],[0,1,2,2]]', '{}', 'not json']) {
        const forged = encodeEntryFile(schema, batches, 'forged', [['sluice.sections', layout]]);
        expect(() => parseEntryFooter(forged, forged.length), layout).toThrow(
          expect.objectContaining({ code: 'DATA_CORRUPT' }),
        );
        expect(() => splitSections(wholeTable(forged)), layout).toThrow(
          expect.objectContaining({ code: 'DATA_CORRUPT' }),
        );
      }
    });
  });
});

/** An entry whose footer is longer than 64 KiB: 3,000 one-row sections. */
function manySections() {
  const byShard = new Map(
    Array.from({ length: 3000 }, (_, shard) => [shard, [write([{ id: shard }], OP_DELETE)]] as const),
  );
  return { ...encodeSectionedEntry(schema, byShard), byShard };
}

describe('reading sections from the file store', () => {
  let dir: TempDir;
  let store: FaultyStore;
  const key = tableWalKey('t', 7);

  beforeEach(async () => {
    dir = await createTempDir('wal-sections');
    store = new FaultyStore(dir.fsStore());
  });
  afterEach(() => dir.cleanup());

  it('a footer costs one GET and a section one GET', async () => {
    const byShard = randomShards(seededRandom(7));
    const { body, sections } = encodeSectionedEntry(schema, byShard, 'stored');
    await store.put(key, body);
    const footer = await readEntryFooter(store, key, body.length);
    expect(footer).toEqual({ kind: 'entry', entryId: 'stored', schemaVersion: 1, sections });
    expect(store.calls.get).toBe(1);
    for (const [i, section] of sections.entries()) {
      const table = await readSection(store, key, section, schema);
      expect(rowsWithOps(table)).toEqual(expectedRows(byShard.get(section.shard)!));
      expect(store.calls.get).toBe(2 + i);
    }
  });

  it('a footer longer than 64 KiB costs two GETs', async () => {
    const { body, sections, byShard } = manySections();
    await store.put(key, body);
    expect(await readEntryFooter(store, key, body.length)).toMatchObject({ kind: 'entry', sections });
    expect(store.calls.get).toBe(2);
    const last = sections.at(-1)!;
    expect(rowsWithOps(await readSection(store, key, last, schema))).toEqual(
      expectedRows(byShard.get(last.shard)!),
    );
  });

  it('a hole’s footer says hole', async () => {
    await store.put(key, encodeHole(7));
    expect(await readEntryFooter(store, key, encodeHole(7).length)).toEqual({ kind: 'hole' });
  });

  it('an entry gone: no footer, and its section is DATA_MISSING', async () => {
    const section: EntrySection = { shard: 0, start: 8, end: 100, rows: 1 };
    expect(await readEntryFooter(store, key, 1000)).toBeNull();
    await expect(readSection(store, key, section, schema)).rejects.toMatchObject({
      code: 'DATA_MISSING',
      details: { key, shard: 0 },
    });
  });

  it('an object shorter than its section, or a section of other rows than it says, is DATA_CORRUPT', async () => {
    const { body, sections } = encodeSectionedEntry(schema, randomShards(seededRandom(3)));
    const last = sections.at(-1)!;
    await store.put(key, body.subarray(0, last.end - 1));
    await expect(readSection(store, key, last, schema)).rejects.toMatchObject({ code: 'DATA_CORRUPT' });
    await store.put(key, body);
    await expect(readSection(store, key, { ...last, rows: last.rows + 1 }, schema)).rejects.toMatchObject({
      code: 'DATA_CORRUPT',
    });
    await expect(readEntryFooter(store, key, body.length + 1)).rejects.toMatchObject({
      code: 'DATA_CORRUPT',
    });
  });
});

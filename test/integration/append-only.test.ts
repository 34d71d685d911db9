import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, jsonRowsToRecordBatch, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { fromLanceArrow, lanceDb } from '../../shared/base/lance-module.ts';
import { dieAt } from '../support/die-at.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { spawnLogged } from '../support/logged-process.ts';
import { childEnv } from '../support/worker-process.ts';

/** An event stream: no column identifies a row, and identical rows are distinct events. */
function streamTable(name: string, shards = 2) {
  return {
    name,
    schema: {
      fields: [
        { name: 'n', type: 'int64', nullable: false },
        { name: 'kind', type: 'utf8', nullable: false },
        { name: 'value', type: 'float64', nullable: true },
      ],
    },
    shards,
    settings: { sealDelayMs: 10 },
  };
}

function streamRows(from: number, to: number, kind = 'click'): JsonRow[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ n: from + i, kind, value: (from + i) / 2 }));
}

async function write(h: Harness, table: string, rows: JsonRow[]) {
  const def = await h.sluice.tables.describe(table);
  return h.sluice.writes.append(table, jsonRowsToRecordBatch(def.schema, rows));
}

/** Every row through paged scans, sorted by `n` then `kind` (a scan promises no order here). */
async function scanAll(h: Harness, table: string, limit = 97): Promise<JsonRow[]> {
  const def = await h.sluice.tables.describe(table);
  const rows: JsonRow[] = [];
  let after: string | null = null;
  do {
    const page = await h.sluice.reads.scan(table, { limit, after });
    rows.push(...tableToJsonRows(def.schema, page.rows));
    after = page.next;
  } while (after);
  return sorted(rows);
}

function sorted(rows: JsonRow[]): JsonRow[] {
  return [...rows].sort((a, b) => Number(a.n) - Number(b.n) || String(a.kind).localeCompare(String(b.kind)));
}

async function sealAndFlush(h: Harness, table: string, shards = 2) {
  for (let shard = 0; shard < shards; shard++) {
    await h.sluice.shards.seal(table, shard);
    await h.sluice.shards.flush(table, shard);
  }
}

/** The rows LanceDB sees at the version the base manifest records. */
async function recordedBaseRows(h: Harness, table: string): Promise<JsonRow[]> {
  const { lanceVersion } = await h.parts.bases.read(table);
  if (lanceVersion === null) return [];
  const handle = await (await lanceDb().connect(`${h.dir.path}/tables/${table}`)).openTable('base');
  await handle.checkout(lanceVersion);
  const def = await h.sluice.tables.describe(table);
  return sorted(tableToJsonRows(def.schema, fromLanceArrow(await handle.query().toArrow())));
}

describe('append-only tables: no primary key, every row kept (I2, I10, I11, I13)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('an omitted or empty primaryKey creates an append-only table; describe says so', async () => {
    const omitted = await h.sluice.tables.create(streamTable('omitted'));
    const empty = await h.sluice.tables.create({ ...streamTable('empty'), primaryKey: [] });
    expect(omitted.schema.primaryKey).toEqual([]);
    expect(empty.schema.primaryKey).toEqual([]);
    // Without a key nothing forces a column to be non-null: the table keeps what was declared.
    expect(omitted.schema.fields.map((f) => f.nullable)).toEqual([false, false, true]);
  });

  it('1,000 identical rows in 10 requests are 1,000 rows in the WAL, in L0, in the base and to LanceDB', async () => {
    await h.createTable(streamTable('same'));
    const one = { n: 7, kind: 'same', value: 1.5 };
    const acks = [];
    for (let i = 0; i < 10; i++)
      acks.push(
        await write(
          h,
          'same',
          Array.from({ length: 100 }, () => one),
        ),
      );
    // A request is one entry on one shard, so it lands whole or not at all.
    expect(acks.every((a) => a.shards.length === 1 && a.acked === 100)).toBe(true);
    expect(new Set(acks.map((a) => a.shards[0]!.shard)).size).toBe(2);
    const all = Array.from({ length: 1000 }, () => one);
    expect(await scanAll(h, 'same')).toEqual(all);
    expect((await h.sluice.reads.countRows('same')).rows).toBe(1000);
    await sealAndFlush(h, 'same');
    expect(await scanAll(h, 'same')).toEqual(all);
    expect((await h.sluice.reads.countRows('same')).rows).toBe(1000);
    await write(h, 'same', streamRows(1, 50));
    await h.sluice.tableWork.merge('same');
    expect(await recordedBaseRows(h, 'same')).toEqual(all);
    const everything = sorted([...all, ...streamRows(1, 50)]);
    expect(await scanAll(h, 'same')).toEqual(everything);
    const count = await h.sluice.reads.countRows('same');
    expect(count).toEqual({ rows: 1050, baseRows: 1000, pendingKeys: 50 });
    await sealAndFlush(h, 'same');
    await h.sluice.tableWork.merge('same');
    expect(await recordedBaseRows(h, 'same')).toEqual(everything);
    expect(await scanAll(h, 'same', 1000)).toEqual(everything);
  });

  it('a lookup, a lookup of many keys, a delete and a key range answer TABLE_HAS_NO_KEY and change nothing', async () => {
    await h.createTable(streamTable('keyless'));
    await write(h, 'keyless', streamRows(1, 10));
    const noKey = { code: 'TABLE_HAS_NO_KEY' };
    await expect(h.sluice.reads.lookup('keyless', 1)).rejects.toMatchObject(noKey);
    await expect(h.sluice.reads.lookupMany('keyless', [1, 2])).rejects.toMatchObject(noKey);
    await expect(h.sluice.writes.delete('keyless', [1])).rejects.toMatchObject(noKey);
    await expect(h.sluice.reads.scan('keyless', { limit: 10, from: 1 })).rejects.toMatchObject(noKey);
    await expect(h.sluice.reads.lookup('keyless', 1)).rejects.toThrow(
      'table "keyless" is append-only (no primary key)',
    );
    expect(await scanAll(h, 'keyless')).toEqual(streamRows(1, 10));
  });

  it('I11: a merge dying between its Lance add and its record appends once on the redo', async () => {
    await h.createTable(streamTable('between'));
    await write(h, 'between', streamRows(1, 20));
    await sealAndFlush(h, 'between');
    await h.sluice.tableWork.merge('between');
    await write(h, 'between', streamRows(21, 40));
    await sealAndFlush(h, 'between');
    const recorded = await h.parts.bases.read('between');
    await expect(h.sluice.tableWork.merge('between', dieAt('lance-committed'))).rejects.toThrow(
      'died at lance-committed',
    );
    expect(await h.parts.bases.read('between')).toEqual(recorded);
    expect(await scanAll(h, 'between')).toEqual(streamRows(1, 40));
    await h.sluice.tableWork.merge('between');
    expect(await recordedBaseRows(h, 'between')).toEqual(streamRows(1, 40));
    expect(await scanAll(h, 'between')).toEqual(streamRows(1, 40));
  });

  it('I11: kill -9 between the Lance add and the record: the next merge appends once', async () => {
    await h.createTable(streamTable('killed', 1));
    await write(h, 'killed', streamRows(1, 10));
    await sealAndFlush(h, 'killed', 1);
    await h.sluice.tableWork.merge('killed');
    await write(h, 'killed', streamRows(11, 30));
    await sealAndFlush(h, 'killed', 1);
    for (const step of ['prepared', 'lance-committed'] as const) {
      const child = spawnLogged('test/support/merge-until-step.ts', ['killed', step], childEnv(h.config));
      await child.waitForLine((line) => line.msg === 'merge step', `the merge to reach ${step}`);
      await child.stop('SIGKILL');
      expect((await h.parts.bases.read('killed')).mergedThrough).toEqual({ '0': 1 });
    }
    expect(await scanAll(h, 'killed')).toEqual(streamRows(1, 30));
    await h.sluice.tableWork.merge('killed');
    expect(await recordedBaseRows(h, 'killed')).toEqual(streamRows(1, 30));
    expect((await h.sluice.reads.countRows('killed')).rows).toBe(30);
  });

  it('a filtered search sees pending and merged rows alike, each once', async () => {
    await h.createTable(streamTable('searched'));
    await write(h, 'searched', streamRows(1, 30, 'a'));
    await sealAndFlush(h, 'searched');
    await h.sluice.tableWork.merge('searched');
    await write(h, 'searched', streamRows(1, 30, 'b'));
    const found = await h.sluice.reads.search('searched', { filter: 'n <= 5', k: 100 });
    const def = await h.sluice.tables.describe('searched');
    expect(sorted(tableToJsonRows(def.schema, found.rows))).toEqual(
      sorted([...streamRows(1, 5, 'a'), ...streamRows(1, 5, 'b')]),
    );
  });

  it('with retention: expired events leave reads at once and never reach the base; newer ones stay, each once', async () => {
    await h.close();
    let now = Date.parse('2026-06-01T12:00:00Z');
    h = await createHarness({}, { clock: () => now });
    await h.createTable({
      name: 'expiring',
      schema: {
        fields: [
          { name: 'ts', type: 'timestamp[ms]', nullable: false },
          { name: 'kind', type: 'utf8', nullable: false },
        ],
      },
      retention: { column: 'ts', maxAgeSeconds: 3600 },
      settings: { sealDelayMs: 10 },
    });
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
    // Identical events at the same time are two events.
    const rows = [
      { ts: at(50), kind: 'old' },
      { ts: at(50), kind: 'old' },
      { ts: at(5), kind: 'new' },
    ];
    await write(h, 'expiring', rows);
    await sealAndFlush(h, 'expiring', 1);
    const kinds = async () => {
      const def = await h.sluice.tables.describe('expiring');
      const page = await h.sluice.reads.scan('expiring', { limit: 100 });
      return tableToJsonRows(def.schema, page.rows)
        .map((r) => r.kind)
        .sort();
    };
    expect(await kinds()).toEqual(['new', 'old', 'old']);
    now += 20 * 60_000;
    expect(await kinds()).toEqual(['new']);
    expect((await h.sluice.reads.countRows('expiring')).rows).toBe(1);
    await h.sluice.tableWork.merge('expiring');
    expect((await recordedBaseRows(h, 'expiring')).map((r) => r.kind)).toEqual(['new']);
    expect(await kinds()).toEqual(['new']);
  });

  it('a WAL put whose answer was lost is settled by the writer: acked, and its rows land once', async () => {
    await h.createTable(streamTable('lost', 1));
    const lost = h.store.inject({
      op: 'putIfAbsent',
      key: 'tables/lost/shards/0/wal/*',
      fault: 'lostAck',
      times: 1,
    });
    const ack = await write(h, 'lost', streamRows(1, 20));
    expect([lost.hits, ack.acked, ack.shards]).toEqual([1, 20, [{ shard: 0, seq: 1 }]]);
    expect(await scanAll(h, 'lost')).toEqual(streamRows(1, 20));
    await sealAndFlush(h, 'lost', 1);
    await h.sluice.tableWork.merge('lost');
    expect(await recordedBaseRows(h, 'lost')).toEqual(streamRows(1, 20));
  });
});

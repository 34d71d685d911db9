/**
 * Retention (docs/design.md, "Retention"): rows whose timestamp column is older than the
 * table's `maxAgeSeconds` are never read, from the WAL, L0 or the base, and the merge lane
 * deletes them from the base; rows inside retention never disappear. The clock is the
 * test's, injected into the process, so the cutoff is exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { silentLogger } from '../../shared/log.ts';
import { decodeScanCursor, encodeScanCursor } from '../../shared/read/scan-cursor.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { tableConfigKey } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { spawnLogged } from '../support/logged-process.ts';
import { flushedGeneration, writeRows } from '../support/rows.ts';
import { childEnv } from '../support/worker-process.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const START = Date.parse('2026-01-01T12:00:00Z');

/** A row of the logs table whose `ts` is `ageMinutes` before START. */
function logRow(id: number, ageMinutes: number, note = `row ${id}`): JsonRow {
  return { id, ts: START - ageMinutes * MINUTE_MS, note, emb: [id, 1] };
}

/** Rows of the base at the Lance version the base manifest records, that `where` passes. */
async function baseCount(h: Harness, table: string, where?: string): Promise<number> {
  const def = await h.sluice.tables.describe(table);
  const { lanceVersion } = await h.parts.bases.read(table);
  if (lanceVersion === null) return 0;
  return (await h.parts.datasets.at(def, lanceVersion)).countRows(where);
}

function laneJob(h: Harness, table: string) {
  return h.sluice.tableWork.runLane({
    table,
    queueWaitMs: null,
    log: silentLogger,
    onWorkProgress: () => {},
  });
}

function idsOf(rows: readonly JsonRow[]): number[] {
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Every id a read answers: lookups of `ids` one by one and all at once, a scan, the count and both searches. */
async function visibleEverywhere(sluice: Sluice, table: string, ids: readonly number[]) {
  const def = await sluice.tables.describe(table);
  const json = (rows: Parameters<typeof tableToJsonRows>[1]) => tableToJsonRows(def.schema, rows);
  const lookup: number[] = [];
  for (const id of ids) {
    const found = await sluice.reads.lookup(table, id);
    if (found) lookup.push(...idsOf(json(found)));
  }
  const many = await sluice.reads.lookupMany(table, ids);
  const scanned: JsonRow[] = [];
  let after: string | null = null;
  do {
    const page = await sluice.reads.scan(table, { limit: 2, after });
    scanned.push(...json(page.rows));
    after = page.next;
  } while (after);
  const vector = await sluice.reads.search(table, { vector: [0, 1], k: 100 });
  const filtered = await sluice.reads.search(table, { filter: 'id > 0', k: 100 });
  return {
    lookup: lookup.sort((a, b) => a - b),
    lookupMany: idsOf(json(many.rows)),
    missing: (many.missing as number[]).sort((a, b) => a - b),
    scan: idsOf(scanned),
    count: (await sluice.reads.countRows(table)).rows,
    vector: idsOf(json(vector.rows)),
    filter: idsOf(json(filtered.rows)),
  };
}

function logsTable(name: string, retention: unknown = { column: 'ts', maxAgeSeconds: 3600 }) {
  return {
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'ts', type: 'timestamp[ms]', nullable: false },
        { name: 'maybe', type: 'timestamp[ms]', nullable: true },
        { name: 'note', type: 'utf8', nullable: true },
        { name: 'emb', type: 'vector[float32, 2]', nullable: true },
      ],
    },
    primaryKey: ['id'],
    retention,
    settings: { sealDelayMs: 10 },
  };
}

describe('retention', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;
  let now: number;

  beforeEach(async () => {
    now = START;
    served = await serveTestApi({}, { clock: () => now });
    ({ h, tokens, call } = served);
  });

  afterEach(() => served.close());

  it('is part of the table: created, described, stored', async () => {
    const created = await call('POST', '/v1/tables', { token: tokens.write, json: logsTable('logs') });
    expect(created.status).toBe(201);
    expect(created.json.retention).toEqual({ column: 'ts', maxAgeSeconds: 3600 });
    expect(created.json.indexes).toEqual([{ column: 'ts', type: 'btree' }]);
    const described = await call('GET', '/v1/tables/logs', { token: tokens.read });
    expect(described.json.retention).toEqual({ column: 'ts', maxAgeSeconds: 3600 });
    const plain = await call('POST', '/v1/tables', { token: tokens.write, json: logsTable('plain', null) });
    expect(plain.json.retention).toBeNull();
  });

  it.each([
    ['a nullable column', { column: 'maybe', maxAgeSeconds: 3600 }, 'nullable'],
    ['a column that is not a timestamp', { column: 'note', maxAgeSeconds: 3600 }, 'not a timestamp'],
    ['a key column', { column: 'id', maxAgeSeconds: 3600 }, 'not a timestamp'],
    ['maxAgeSeconds 0', { column: 'ts', maxAgeSeconds: 0 }, 'maxAgeSeconds'],
    ['maxAgeSeconds "x"', { column: 'ts', maxAgeSeconds: 'x' }, 'maxAgeSeconds'],
    ['no column', { maxAgeSeconds: 3600 }, 'column'],
    ['a list', [{ column: 'ts', maxAgeSeconds: 3600 }], 'retention must be'],
  ])(
    'a create body with retention on %s is 400 INVALID_SETTINGS and creates nothing',
    async (_, retention, says) => {
      const refused = await call('POST', '/v1/tables', {
        token: tokens.write,
        json: logsTable('refused', retention),
      });
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('INVALID_SETTINGS');
      expect(refused.json.error.message).toContain(says);
      expect(refused.json.error.message).toMatch(/"maxAgeSeconds"/);
      expect((await call('GET', '/v1/tables/refused', { token: tokens.read })).status).toBe(404);
      expect(await h.store.head(tableConfigKey('refused'))).toBeNull();
    },
  );

  it('rows past the age disappear from lookup, lookupMany, scan, count and search at once, from WAL, L0 and base alike; a row exactly at the cutoff stays', async () => {
    await h.createTable(logsTable('logs'));
    // Per layer: one row that will expire, one exactly at the cutoff, one well inside.
    await flushedGeneration(h.sluice, 'logs', [logRow(1, 55), logRow(2, 50), logRow(3, 0)]);
    await h.sluice.tableWork.merge('logs');
    await flushedGeneration(h.sluice, 'logs', [logRow(11, 55), logRow(12, 50), logRow(13, 0)]);
    await writeRows(h.sluice, 'logs', [logRow(21, 55), logRow(22, 50), logRow(23, 0)]);
    const ids = [1, 2, 3, 11, 12, 13, 21, 22, 23];
    const all = await visibleEverywhere(h.sluice, 'logs', ids);
    expect(all).toEqual({
      lookup: ids,
      lookupMany: ids,
      missing: [],
      scan: ids,
      count: 9,
      vector: ids,
      filter: ids,
    });

    // Ten minutes on, the cutoff is 50 minutes before START: the rows 55 minutes old are gone.
    now = START + 10 * MINUTE_MS;
    const kept = [2, 3, 12, 13, 22, 23];
    expect(await visibleEverywhere(h.sluice, 'logs', ids)).toEqual({
      lookup: kept,
      lookupMany: kept,
      missing: [1, 11, 21],
      scan: kept,
      count: 6,
      vector: kept,
      filter: kept,
    });

    // One millisecond later the rows at the cutoff go too.
    now += 1;
    const left = [3, 13, 23];
    expect(await visibleEverywhere(h.sluice, 'logs', ids)).toMatchObject({
      lookup: left,
      scan: left,
      count: 3,
    });
  });

  it('a timestamp[us] column expires at the same edge, to the microsecond', async () => {
    const table = logsTable('micros');
    table.schema.fields[1] = { name: 'ts', type: 'timestamp[us]', nullable: false };
    await h.createTable(table);
    const edge = (START - 50 * MINUTE_MS) * 1000;
    const row = (id: number, ts: number) => ({ id, ts, note: null, emb: [id, 1] });
    // Per layer: one microsecond below the cutoff ten minutes on, and exactly at it.
    await flushedGeneration(h.sluice, 'micros', [row(1, edge - 1), row(2, edge)]);
    await h.sluice.tableWork.merge('micros');
    await writeRows(h.sluice, 'micros', [row(21, edge - 1), row(22, edge)]);
    expect(await visibleEverywhere(h.sluice, 'micros', [1, 2, 21, 22])).toMatchObject({ count: 4 });
    now = START + 10 * MINUTE_MS;
    expect(await visibleEverywhere(h.sluice, 'micros', [1, 2, 21, 22])).toEqual({
      lookup: [2, 22],
      lookupMany: [2, 22],
      missing: [1, 21],
      scan: [2, 22],
      count: 2,
      vector: [2, 22],
      filter: [2, 22],
    });
    await flushedGeneration(h.sluice, 'micros', [row(31, edge - 1), row(32, edge)]);
    await h.sluice.tableWork.merge('micros');
    expect(await baseCount(h, 'micros', 'id IN (31, 32)')).toBe(1);
    expect(await baseCount(h, 'micros', 'id = 32')).toBe(1);
  });

  it('a key whose newest value expired is gone though its older base value is not', async () => {
    await h.createTable(logsTable('logs'));
    await flushedGeneration(h.sluice, 'logs', [
      logRow(5, 0, 'base'),
      logRow(6, 0, 'base'),
      logRow(7, 0, 'base'),
    ]);
    await h.sluice.tableWork.merge('logs');
    // Newer writes of 5 (in L0) and 6 (in the WAL) carry an old timestamp: a backfill.
    await flushedGeneration(h.sluice, 'logs', [logRow(5, 55, 'old')]);
    await writeRows(h.sluice, 'logs', [logRow(6, 55, 'old')]);
    expect(await visibleEverywhere(h.sluice, 'logs', [5, 6, 7])).toMatchObject({ scan: [5, 6, 7], count: 3 });
    now = START + 10 * MINUTE_MS;
    expect(await visibleEverywhere(h.sluice, 'logs', [5, 6, 7])).toEqual({
      lookup: [7],
      lookupMany: [7],
      missing: [5, 6],
      scan: [7],
      count: 1,
      vector: [7],
      filter: [7],
    });
  });

  it("a scan's cursor pins its cutoff: a row expiring mid-scan is in every page or in none", async () => {
    await h.createTable(logsTable('logs'));
    await flushedGeneration(h.sluice, 'logs', [logRow(1, 55), logRow(2, 0)]);
    await h.sluice.tableWork.merge('logs');
    await writeRows(h.sluice, 'logs', [logRow(11, 55), logRow(12, 0)]);
    const def = await h.sluice.tables.describe('logs');
    const first = await h.sluice.reads.scan('logs', { limit: 1 });
    now = START + 10 * MINUTE_MS;
    const seen = idsOf(tableToJsonRows(def.schema, first.rows));
    let after = first.next;
    while (after) {
      const page = await h.sluice.reads.scan('logs', { limit: 1, after });
      seen.push(...idsOf(tableToJsonRows(def.schema, page.rows)));
      after = page.next;
    }
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 11, 12]);
    expect(await visibleEverywhere(h.sluice, 'logs', [1, 2, 11, 12])).toMatchObject({ scan: [2, 12] });
  });

  it('a cursor whose cutoff is older than a cursor can live is refused: it would show rows the base still holds', async () => {
    await h.createTable(logsTable('logs'));
    await writeRows(h.sluice, 'logs', [logRow(1, 0), logRow(2, 0)]);
    const first = await h.sluice.reads.scan('logs', { limit: 1 });
    const cursor = decodeScanCursor(first.next!, { shards: 1, walLane: 'shard' });
    const ttlMs = h.config.scheduler.gcGraceSeconds * 1000;
    const forged = { ...cursor, pin: { ...cursor.pin, cutoff: cursor.pin.cutoff! - ttlMs - 1 } };
    await expect(
      h.sluice.reads.scan('logs', { limit: 1, after: encodeScanCursor(forged) }),
    ).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    const dropped = { ...cursor, pin: { ...cursor.pin, cutoff: null } };
    await expect(
      h.sluice.reads.scan('logs', { limit: 1, after: encodeScanCursor(dropped) }),
    ).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    expect((await h.sluice.reads.scan('logs', { limit: 1, after: first.next })).rows.numRows).toBe(1);
  });

  it('the base loses expired rows within one merge lane job, in commits of at most retentionBatchRows; the rows inside stay', async () => {
    await h.createTable({ ...logsTable('logs'), settings: { sealDelayMs: 10, retentionBatchRows: 4 } });
    const old = [60, 59, 58, 57, 56, 55].map((age, i) => logRow(i + 1, age));
    const young = [7, 8, 9, 10].map((id) => logRow(id, 0));
    await flushedGeneration(h.sluice, 'logs', [...old, ...young]);
    await laneJob(h, 'logs');
    expect(await baseCount(h, 'logs')).toBe(10);

    now = START + 10 * MINUTE_MS;
    const first = await laneJob(h, 'logs');
    expect(first).toMatchObject({
      status: 'done',
      retention: { deleted: 4, expiredBefore: START - 56 * MINUTE_MS },
    });
    expect(await h.parts.bases.read('logs')).toMatchObject({ expiredBefore: START - 56 * MINUTE_MS });
    expect(await baseCount(h, 'logs')).toBe(6);
    const second = await laneJob(h, 'logs');
    expect(second).toMatchObject({ retention: { deleted: 2, expiredBefore: START - 50 * MINUTE_MS } });
    expect(await baseCount(h, 'logs')).toBe(4);
    expect(await baseCount(h, 'logs', 'id >= 7')).toBe(4);
    const third = await laneJob(h, 'logs');
    expect(third).toMatchObject({ retention: { deleted: 0, lanceVersion: null } });
    expect((await visibleEverywhere(h.sluice, 'logs', [1, 6, 7, 10])).scan).toEqual([7, 8, 9, 10]);
  });

  it('a step deletes at least one timestamp, even when it holds more rows than retentionBatchRows', async () => {
    await h.createTable({ ...logsTable('logs'), settings: { sealDelayMs: 10, retentionBatchRows: 2 } });
    await flushedGeneration(h.sluice, 'logs', [
      logRow(1, 58),
      logRow(2, 58),
      logRow(3, 58),
      logRow(4, 55),
      logRow(5, 0),
    ]);
    await laneJob(h, 'logs');
    now = START + 10 * MINUTE_MS;
    expect(await laneJob(h, 'logs')).toMatchObject({
      retention: { deleted: 3, expiredBefore: START - 58 * MINUTE_MS + 1 },
    });
    expect(await laneJob(h, 'logs')).toMatchObject({ retention: { deleted: 1 } });
    expect(await baseCount(h, 'logs')).toBe(1);
  });

  it('a merge adds no expired row, and an expired newest value deletes its key from the base', async () => {
    await h.createTable(logsTable('logs'));
    await flushedGeneration(h.sluice, 'logs', [logRow(22, 0, 'base'), logRow(23, 0, 'base')]);
    await h.sluice.tableWork.merge('logs');
    await flushedGeneration(h.sluice, 'logs', [logRow(20, 55), logRow(21, 0), logRow(22, 55, 'old')]);
    now = START + 10 * MINUTE_MS;
    await h.sluice.tableWork.merge('logs');
    expect(await baseCount(h, 'logs', 'id IN (20, 21, 22, 23)')).toBe(2);
    expect(await baseCount(h, 'logs', 'id IN (21, 23)')).toBe(2);
  });

  it('rows inside retention never disappear, whatever the timestamps and clock steps', async () => {
    await h.createTable({ ...logsTable('logs'), settings: { sealDelayMs: 10, retentionBatchRows: 3 } });
    let seed = 35;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const newest = new Map<number, number>();
    for (let step = 0; step < 8; step++) {
      const rows = Array.from({ length: 6 }, () => {
        const id = random(20) + 1;
        return { id, ts: now - random(90) * MINUTE_MS, note: `step ${step}`, emb: [id, 1] };
      });
      const written = new Map(rows.map((r) => [r.id, r.ts]));
      if (step % 3 === 2) await writeRows(h.sluice, 'logs', rows);
      else await flushedGeneration(h.sluice, 'logs', rows);
      for (const [id, ts] of written) newest.set(id, ts);
      if (step % 3 === 1) {
        const gone = random(20) + 1;
        await h.sluice.writes.delete('logs', [gone]);
        newest.delete(gone);
      }
      if (step % 2 === 1) await laneJob(h, 'logs');
      now += random(20) * MINUTE_MS;
      const cutoff = now - HOUR_MS;
      const inside = [...newest].filter(([, ts]) => ts >= cutoff).map(([id]) => id);
      const seen = await visibleEverywhere(h.sluice, 'logs', [...newest.keys()]);
      const expected = inside.sort((a, b) => a - b);
      expect({ step, scan: seen.scan, lookup: seen.lookup, count: seen.count, filter: seen.filter }).toEqual({
        step,
        scan: expected,
        lookup: expected,
        count: expected.length,
        filter: expected,
      });
    }
  });

  it('kill -9 between the retention delete and its record: restored, redone once, nothing inside retention lost', async () => {
    await h.createTable(logsTable('logs'));
    // Merged while the test's clock is at START; the child's clock is the machine's, far
    // later, so for it the rows of START are past retention, the ones a day ahead inside.
    const ahead = Date.now() + 24 * HOUR_MS;
    const inside = [11, 12, 13].map((id) => ({ ...logRow(id, 0), ts: ahead }));
    await flushedGeneration(h.sluice, 'logs', [logRow(1, 30), logRow(2, 20), ...inside]);
    await h.sluice.tableWork.merge('logs');
    const recorded = await h.parts.bases.read('logs');
    const child = spawnLogged(
      'test/support/merge-until-step.ts',
      ['logs', 'retention-deleted'],
      childEnv(h.config),
    );
    await child.waitForLine((line) => line.msg === 'merge step', 'the retention step to delete');
    await child.stop('SIGKILL');
    expect(await h.parts.bases.read('logs')).toEqual(recorded);
    expect(await baseCount(h, 'logs')).toBe(5);

    now = Date.now();
    const redone = await h.sluice.tableWork.retain('logs');
    expect(redone).toMatchObject({
      deleted: 2,
      rolledBack: [expect.objectContaining({ operation: 'Delete' })],
    });
    expect(await baseCount(h, 'logs')).toBe(3);
    expect((await visibleEverywhere(h.sluice, 'logs', [1, 2, 11, 12, 13])).scan).toEqual([11, 12, 13]);
    expect(await h.sluice.tableWork.retain('logs')).toMatchObject({ deleted: 0, rolledBack: [] });
  });
  it('the retention column cannot be made nullable: a row acked with a null there would never be read', async () => {
    expect((await call('POST', '/v1/tables', { token: tokens.write, json: logsTable('logs') })).status).toBe(
      201,
    );
    const altered = await call('POST', '/v1/tables/logs/columns', {
      token: tokens.admin,
      json: { alter: [{ name: 'ts', nullable: true }] },
    });
    expect(altered.status).toBe(400);
    expect(altered.json.error.code).toBe('INVALID_SCHEMA_CHANGE');
    const described = await call('GET', '/v1/tables/logs', { token: tokens.read });
    expect(described.json.schemaVersion).toBe(1);
    // Another column of the type still can.
    const other = await call('POST', '/v1/tables/logs/columns', {
      token: tokens.admin,
      json: {
        alter: [
          { name: 'note', nullable: true },
          { name: 'maybe', nullable: true },
        ],
      },
    });
    expect(other.status).toBe(200);
  });
});

/**
 * Issue 14's reads over HTTP: projection, several keys in one lookup, key-range scans and
 * the live row count, over a table whose rows are split between the Lance base and the
 * pending overlay, with overwrites and deletes on both sides.
 */
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type ServedHarness, serveHarness } from '../support/harness-api.ts';
import { type Call, type TestTokens, testTokens } from '../support/http-client.ts';
import { eventRows, eventsTable, flushedGeneration, writeRows } from '../support/rows.ts';

const ARROW = { accept: 'application/vnd.apache.arrow.stream' };

/**
 * Ids 1..60: 1..40 merged into the base (v1); pending over it, 30..50 overwritten (v2),
 * 51..60 new (v3) and 5, 35 and 55 deleted (5 and 35 are base rows).
 */
const LIVE = [
  ...eventRows(1, 4, 1),
  ...eventRows(6, 29, 1),
  ...eventRows(30, 34, 2),
  ...eventRows(36, 50, 2),
  ...eventRows(51, 54, 3),
  ...eventRows(56, 60, 3),
];

function byId(rows: JsonRow[]): JsonRow[] {
  return [...rows].sort((a, b) => Number(a.id) - Number(b.id));
}

describe('reads over HTTP: projection, multi-key lookup, key ranges, row count', () => {
  let h: Harness;
  let served: ServedHarness;
  let call: Call;
  let tokens: TestTokens;

  const get = (path: string, headers?: Record<string, string>) =>
    call('GET', `/v1/tables/events/${path}`, { token: tokens.read, ...(headers ? { headers } : {}) });

  /** Every page of a scan of `query`, following `next`. */
  const scanAll = async (query: string, limit: number): Promise<JsonRow[]> => {
    const rows: JsonRow[] = [];
    let after = '';
    do {
      const page = await get(`rows?${query}&limit=${limit}&after=${after}`);
      expect(page.status).toBe(200);
      rows.push(...page.json.rows);
      after = page.json.next ?? '';
    } while (after);
    return rows;
  };

  beforeAll(async () => {
    tokens = testTokens();
    h = await createHarness({ tokens: JSON.parse(tokens.env) });
    served = await serveHarness(h);
    call = served.call;
    await h.createTable(eventsTable('events', { shards: 2 }));
    await flushedGeneration(h.sluice, 'events', eventRows(1, 40, 1));
    await h.sluice.tableWork.merge('events');
    await h.sluice.writes.delete('events', [5]);
    await flushedGeneration(h.sluice, 'events', eventRows(30, 50, 2));
    await writeRows(h.sluice, 'events', eventRows(51, 60, 3));
    await h.sluice.writes.delete('events', [35, 55]);
  });

  afterAll(async () => {
    await served.close();
    await h.close();
  });

  it('a scan answers only the columns asked for, in their order, in JSON and Arrow', async () => {
    const json = await get('rows?columns=name,id&limit=3');
    expect(json.status).toBe(200);
    for (const row of json.json.rows) expect(Object.keys(row)).toEqual(['name', 'id']);
    const arrow = await get('rows?columns=value&limit=1000', ARROW);
    const table = tableFromIPC(arrow.bytes);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['value']);
    expect(table.numRows).toBe(LIVE.length);
  });

  it('a lookup answers only the columns asked for', async () => {
    expect((await get('rows?key=31&columns=name')).json).toEqual({ row: { name: 'event-31-v2' } });
    expect((await get('rows?key=7&columns=value,id')).json).toEqual({ row: { value: 7, id: 7 } });
  });

  it('an unknown, repeated or empty column list is a 400 naming the columns there are', async () => {
    for (const query of [
      'rows?columns=id,nope',
      'rows?key=1&columns=nope',
      'rows?columns=id,id',
      'rows?columns=',
    ]) {
      const reply = await get(query);
      expect(reply.status, query).toBe(400);
      expect(reply.json.error.code).toBe('INVALID_REQUEST');
    }
    const unknown = await get('rows?columns=id,nope');
    expect(unknown.json.error.message).toBe(
      'unknown column "nope"; the columns of events are id, name, value',
    );
    expect(unknown.json.error.details.columns).toEqual(['id', 'name', 'value']);
  });

  it('POST …/rows/lookup answers the rows of several keys in the order asked and names the missing ones', async () => {
    const reply = await call('POST', '/v1/tables/events/rows/lookup', {
      token: tokens.read,
      json: { keys: [52, 5, 3, '31', 35, 99, 3, 45] },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      rows: [
        ...eventRows(52, 52, 3),
        ...eventRows(3, 3, 1),
        ...eventRows(31, 31, 2),
        ...eventRows(45, 45, 2),
      ],
      missing: [5, 35, 99],
    });
    const projected = await call('POST', '/v1/tables/events/rows/lookup?columns=name', {
      token: tokens.read,
      json: { keys: [2, 60] },
    });
    expect(projected.json).toEqual({ rows: [{ name: 'event-2-v1' }, { name: 'event-60-v3' }], missing: [] });
  });

  it('a lookup of several keys in Arrow carries the missing keys in its schema metadata', async () => {
    const reply = await call('POST', '/v1/tables/events/rows/lookup', {
      token: tokens.read,
      json: { keys: [1, 35, 51] },
      headers: ARROW,
    });
    const table = tableFromIPC(reply.bytes);
    expect(table.getChild('id')?.toArray()).toEqual(new BigInt64Array([1n, 51n]));
    expect(JSON.parse(table.schema.metadata.get('sluice.missing')!)).toEqual([35]);
  });

  it('bad lookups are 4xx that say what to send', async () => {
    const repeated = await get('rows?key=1&key=2');
    expect(repeated.status).toBe(400);
    expect(repeated.json.error.message).toContain('POST {"keys":[…]} to /v1/tables/events/rows/lookup');
    const mixed = await get('rows?key=1&from=3');
    expect(mixed.json.error.message).toBe('key looks up one row: it goes without from');
    const empty = await call('POST', '/v1/tables/events/rows/lookup', {
      token: tokens.read,
      json: { keys: [] },
    });
    expect(empty.json.error.message).toContain('"keys" must be a non-empty array');
    const tooMany = await call('POST', '/v1/tables/events/rows/lookup', {
      token: tokens.read,
      json: { keys: Array.from({ length: 1001 }, (_, i) => i) },
    });
    expect(tooMany).toMatchObject({
      status: 413,
      json: { error: { code: 'TOO_MANY_ROWS', details: { max: 1000 } } },
    });
    const badKey = await call('POST', '/v1/tables/events/rows/lookup', {
      token: tokens.read,
      json: { keys: ['x'] },
    });
    expect(badKey).toMatchObject({ status: 400, json: { error: { code: 'INVALID_KEY' } } });
  });

  it('a key-range scan returns every live row of [from, to) exactly once, across pages, base and overlay', async () => {
    for (const [from, to, limit] of [
      [3, 45, 4],
      [28, 33, 1],
      [36, 61, 7],
      [1, 2, 5],
    ] as const) {
      const rows = await scanAll(`from=${from}&to=${to}`, limit);
      expect(byId(rows), `${from}..${to}`).toEqual(
        LIVE.filter((r) => Number(r.id) >= from && Number(r.id) < to),
      );
      expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    }
    expect(byId(await scanAll('from=50', 3))).toEqual(LIVE.filter((r) => Number(r.id) >= 50));
    expect(byId(await scanAll('to=10', 3))).toEqual(LIVE.filter((r) => Number(r.id) < 10));
    expect(await scanAll('from=20&to=20', 3)).toEqual([]);
    expect(byId(await scanAll('from=10&to=40&columns=id', 6))).toEqual(
      LIVE.filter((r) => Number(r.id) >= 10 && Number(r.id) < 40).map((r) => ({ id: r.id })),
    );
  });

  it('a range scan refuses a reversed range, a bad bound and a cursor of another range', async () => {
    const reversed = await get('rows?from=9&to=3');
    expect(reversed).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    expect(reversed.json.error.message).toContain('from is after to');
    expect((await get('rows?from=abc')).json.error.code).toBe('INVALID_KEY');
    const first = await get('rows?from=1&to=50&limit=2');
    const other = await get(`rows?from=2&to=50&limit=2&after=${first.json.next}`);
    expect(other).toMatchObject({ status: 400, json: { error: { code: 'INVALID_CURSOR' } } });
    expect(other.json.error.message).toContain('pass the same from and to');
  });

  it('the row count is the live rows of base and overlay, deletes applied', async () => {
    const reply = await get('rows/count');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ table: 'events', rows: LIVE.length, baseRows: 40, pendingKeys: 32 });
    expect((await call('GET', '/v1/tables/nope/rows/count', { token: tokens.read })).status).toBe(404);
  });

  it('a range over a composite key compares the key tuples column by column, in the base and the overlay', async () => {
    await h.createTable({
      name: 'pairs',
      schema: {
        fields: [
          { name: 'tenant', type: 'utf8' },
          { name: 'n', type: 'int32' },
        ],
      },
      primaryKey: ['tenant', 'n'],
      shards: 2,
      settings: { sealDelayMs: 10 },
    });
    const pairs = ['a', 'b', 'c'].flatMap((tenant) => Array.from({ length: 6 }, (_, n) => ({ tenant, n })));
    await flushedGeneration(
      h.sluice,
      'pairs',
      pairs.filter((p) => p.n % 2 === 0),
    );
    await h.sluice.tableWork.merge('pairs');
    await writeRows(
      h.sluice,
      'pairs',
      pairs.filter((p) => p.n % 2 === 1),
    );
    const from = encodeURIComponent('["a",4]');
    const to = encodeURIComponent('["c",1]');
    const rows: JsonRow[] = [];
    let after = '';
    do {
      const page = await call('GET', `/v1/tables/pairs/rows?from=${from}&to=${to}&limit=3&after=${after}`, {
        token: tokens.read,
      });
      expect(page.status).toBe(200);
      rows.push(...page.json.rows);
      after = page.json.next ?? '';
    } while (after);
    const key = (p: JsonRow) => `${p.tenant}${p.n}`;
    expect(rows.map(key).sort()).toEqual(['a4', 'a5', 'b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'c0']);
  });
});

/**
 * Every route of docs/design.md, "Routes" (but merge and scheduler) end to end over real HTTP: the
 * server is `npm start`'s entry as a child process (API and workers, SLUICE_ROLE=all) on a
 * free port, on a Redis namespace and a store directory of this file's own. Dead letters
 * need a shard that really fails to flush: that part runs the same app in this process on
 * the fault-injecting store, still over real HTTP.
 */
import { tableFromIPC } from 'apache-arrow';
import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DeadLetter, DeadLetterQueue } from '../../queue/dead-letter.ts';
import { encodeIpcStream } from '../../shared/arrow/ipc.ts';
import { jsonRowsToTable, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema, type TableSchema } from '../../shared/arrow/schema.ts';
import { generationPrefix } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { prefixGlob } from '../support/key-globs.ts';
import { eventRows, eventsTable } from '../support/rows.ts';
import { type ServedProcess, type ServerProcess, serveProcess } from '../support/server-process.ts';
import { waitFor } from '../support/wait-for.ts';

const ARROW = 'application/vnd.apache.arrow.stream';

const ordersTable = {
  name: 'orders',
  schema: {
    fields: [
      { name: 'tenant', type: 'utf8' },
      { name: 'id', type: 'int32' },
      { name: 'total', type: 'int64', nullable: true },
      { name: 'emb', type: 'vector[float32, 3]', nullable: true },
    ],
  },
  primaryKey: ['tenant', 'id'],
  shards: 2,
  settings: { sealDelayMs: 10 },
};

function schemaOf(create: { schema: unknown; primaryKey: unknown }): TableSchema {
  return parseTableSchema(create.schema, create.primaryKey);
}

function arrowRows(schema: TableSchema, bytes: Uint8Array) {
  return tableToJsonRows(schema, tableFromIPC(bytes));
}

describe('HTTP API over a real server process', () => {
  let served: ServedProcess;
  let server: ServerProcess;
  let tokens: TestTokens;
  let call: Call;

  beforeAll(async () => {
    served = await serveProcess('http-api', { role: 'all', env: { SLUICE_FLUSH_RETRY_BASE_MS: '10' } });
    ({ server, tokens, call } = served);
  });

  afterAll(async () => {
    expect(await served?.stop()).toBe(0);
  });

  /** Sum of allocatedThrough over a table's shards: moves with every WAL entry written. */
  async function allocated(table: string, shards: number): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < shards; shard++) {
      const stats = await call('GET', `/v1/tables/${table}/shards/${shard}`, { token: tokens.read });
      total += stats.json.allocatedThrough ?? 0;
    }
    return total;
  }

  it('GET /healthz answers without a token; GET /metrics needs the read scope', async () => {
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect((await call('GET', '/metrics')).status).toBe(401);
    const metrics = await call('GET', '/metrics', { token: tokens.read });
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toContain('text/plain');
  });

  it('auth: 401 without, with a garbled or an unknown token; 403 with the wrong scope; the right scope passes', async () => {
    const missing = await call('GET', '/v1/tables');
    expect(missing).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
    expect(missing.headers['www-authenticate']).toContain('Bearer');
    const garbled = await call('GET', '/v1/tables', { headers: { authorization: 'Bearer  two words' } });
    expect(garbled).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
    const basic = await call('GET', '/v1/tables', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect((await call('GET', '/v1/tables', { token: `${tokens.read}x` })).status).toBe(401);
    const forbidden = await call('POST', '/v1/tables', { token: tokens.read, json: eventsTable('never') });
    expect(forbidden).toMatchObject({
      status: 403,
      json: { error: { code: 'FORBIDDEN', details: { required: 'write' } } },
    });
    expect((await call('GET', '/v1/dead-letters', { token: tokens.write })).status).toBe(403);
    expect((await call('GET', '/v1/tables', { token: tokens.read })).status).toBe(200);
    expect((await call('GET', '/v1/dead-letters', { token: tokens.admin })).status).toBe(200);
  });

  it('POST /v1/tables creates (201, describe shape) and refuses a duplicate (409); GET lists and describes', async () => {
    const created = await call('POST', '/v1/tables', {
      token: tokens.write,
      json: eventsTable('events', { shards: 2 }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/v1/tables/events');
    expect(created.json).toMatchObject({
      name: 'events',
      primaryKey: ['id'],
      shards: 2,
      drain: false,
      schema: {
        fields: [{ name: 'id', type: 'int64', nullable: false }, { name: 'name' }, { name: 'value' }],
      },
      settings: { sealDelayMs: 10 },
      stats: { baseVersion: 0, baseRows: 0, pendingGenerations: 0, poisonedShards: 0, committedRows: 0 },
    });
    const again = await call('POST', '/v1/tables', { token: tokens.write, json: eventsTable('events') });
    expect(again).toMatchObject({ status: 409, json: { error: { code: 'TABLE_EXISTS' } } });
    const bad = await call('POST', '/v1/tables', {
      token: tokens.write,
      json: { name: 'bad', schema: { fields: [{ name: 'id', type: 'decimal' }] }, primaryKey: ['id'] },
    });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'INVALID_SCHEMA' } } });
    expect((await call('POST', '/v1/tables', { token: tokens.write, json: ordersTable })).status).toBe(201);

    const list = await call('GET', '/v1/tables', { token: tokens.read });
    expect(list.status).toBe(200);
    expect(list.json.items.map((t: { name: string }) => t.name)).toEqual(['events', 'orders']);
    expect(list.json.next).toBeNull();
    const paged = await call('GET', '/v1/tables?limit=1', { token: tokens.read });
    expect(paged.json.items.map((t: { name: string }) => t.name)).toEqual(['events']);
    const rest = await call('GET', `/v1/tables?limit=1&after=${paged.json.next}`, { token: tokens.read });
    expect(rest.json.items.map((t: { name: string }) => t.name)).toEqual(['orders']);

    const described = await call('GET', '/v1/tables/orders', { token: tokens.read });
    expect(described.json).toMatchObject({
      name: 'orders',
      primaryKey: ['tenant', 'id'],
      shards: 2,
      drain: false,
    });
    expect((await call('GET', '/v1/tables/nope', { token: tokens.read })).json.error.code).toBe(
      'TABLE_NOT_FOUND',
    );
  });

  it('POST rows as JSON and as an Arrow stream: acked per shard, read back by key (JSON and Arrow)', async () => {
    const json = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { rows: eventRows(1, 10) },
    });
    expect(json.status).toBe(200);
    expect(json.json.acked).toBe(10);
    expect(json.json.shards.length).toBeGreaterThan(0);
    for (const ack of json.json.shards)
      expect(ack).toEqual({ shard: expect.any(Number), seq: expect.any(Number) });

    const schema = schemaOf(eventsTable('events'));
    const arrow = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      body: encodeIpcStream(jsonRowsToTable(schema, eventRows(11, 20))),
      contentType: ARROW,
    });
    expect(arrow.status).toBe(200);
    expect(arrow.json.acked).toBe(10);

    const one = await call('GET', '/v1/tables/events/rows?key=15', { token: tokens.read });
    expect(one).toMatchObject({ status: 200, json: { row: eventRows(15, 15)[0] } });
    const asArrow = await call('GET', '/v1/tables/events/rows?key=3', {
      token: tokens.read,
      headers: { accept: ARROW },
    });
    expect(asArrow.headers['content-type']).toBe(ARROW);
    expect(arrowRows(schema, asArrow.bytes)).toEqual(eventRows(3, 3));
    const absent = await call('GET', '/v1/tables/events/rows?key=999', { token: tokens.read });
    expect(absent).toMatchObject({ status: 404, json: { error: { code: 'KEY_NOT_FOUND' } } });
  });

  it('GET rows scans in pages, in JSON (next) and as Arrow (Sluice-Next header)', async () => {
    const seen: unknown[] = [];
    let after = '';
    for (;;) {
      const page = await call('GET', `/v1/tables/events/rows?limit=7${after ? `&after=${after}` : ''}`, {
        token: tokens.read,
      });
      expect(page.status).toBe(200);
      seen.push(...page.json.rows);
      if (page.json.next === null) break;
      after = page.json.next;
    }
    expect(seen).toEqual(eventRows(1, 20));

    const schema = schemaOf(eventsTable('events'));
    const arrowSeen: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `/v1/tables/events/rows?limit=8${cursor ? `&after=${cursor}` : ''}`, {
        token: tokens.read,
        headers: { accept: ARROW },
      });
      expect(page.headers['content-type']).toBe(ARROW);
      arrowSeen.push(...arrowRows(schema, page.bytes));
      cursor = page.headers['sluice-next'] as string | undefined;
    } while (cursor);
    expect(arrowSeen).toEqual(eventRows(1, 20));

    const whole = await call('GET', '/v1/tables/events/rows', { token: tokens.read });
    expect(whole.json.rows).toHaveLength(20);
    expect(whole.json.next).toBeNull();
  });

  it('DELETE rows by key hides them from lookup and scan', async () => {
    const deleted = await call('DELETE', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { keys: [2, '4'] },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json.acked).toBe(2);
    expect((await call('GET', '/v1/tables/events/rows?key=2', { token: tokens.read })).status).toBe(404);
    const all = await call('GET', '/v1/tables/events/rows?limit=1000', { token: tokens.read });
    expect(all.json.rows.map((r: { id: number }) => r.id)).toEqual(
      eventRows(1, 20)
        .map((r) => r.id)
        .filter((id) => id !== 2 && id !== 4),
    );
  });

  it('composite keys: lookup with a JSON array, delete by arrays; int64 beyond 2^53 as a string', async () => {
    const rows = [
      { tenant: 'acme', id: 1, total: '9007199254740993', emb: [1, 2, 3] },
      { tenant: 'acme', id: 2, total: 5, emb: null },
      { tenant: 'beta', id: 1, total: null, emb: [0.5, -1, 0] },
    ];
    expect(
      (await call('POST', '/v1/tables/orders/rows', { token: tokens.write, json: { rows } })).status,
    ).toBe(200);
    const key = encodeURIComponent('["acme",1]');
    const found = await call('GET', `/v1/tables/orders/rows?key=${key}`, { token: tokens.read });
    expect(found).toMatchObject({ status: 200, json: { row: rows[0] } });
    const wrongArity = await call('GET', `/v1/tables/orders/rows?key=${encodeURIComponent('["acme"]')}`, {
      token: tokens.read,
    });
    expect(wrongArity).toMatchObject({ status: 400, json: { error: { code: 'INVALID_KEY' } } });
    const deleted = await call('DELETE', '/v1/tables/orders/rows', {
      token: tokens.write,
      json: { keys: [['acme', 1]] },
    });
    expect(deleted.status).toBe(200);
    expect((await call('GET', `/v1/tables/orders/rows?key=${key}`, { token: tokens.read })).status).toBe(404);
    const scan = await call('GET', '/v1/tables/orders/rows', { token: tokens.read });
    expect(scan.json.rows).toEqual([rows[1], rows[2]]);

    const big = { id: '9007199254740993', name: 'beyond 2^53', value: null };
    expect(
      (await call('POST', '/v1/tables/events/rows', { token: tokens.write, json: { rows: [big] } })).status,
    ).toBe(200);
    const bare = await call('GET', '/v1/tables/events/rows?key=9007199254740993', { token: tokens.read });
    expect(bare).toMatchObject({ status: 200, json: { row: big } });
  });

  it('the workers of the same process seal and flush what was written; shard stats show it', async () => {
    const shard = await waitFor(
      async () => {
        const table = await call('GET', '/v1/tables/events', { token: tokens.read });
        const stats = await call('GET', '/v1/tables/events/shards/0', { token: tokens.read });
        const { committedGenerations, sealedGenerations, unsealedEntries } = table.json.stats;
        const flushed = committedGenerations >= 2 && sealedGenerations === 0 && unsealedEntries === 0;
        return flushed && stats.json.sealed.length === 0 && stats.json.unsealedEntries === 0 ? stats : null;
      },
      { message: 'the events table flushed to L0', timeoutMs: 30_000 },
    ).catch((err: Error) => {
      const complaints = server.lines.filter((line) => line.level >= 40).slice(-5);
      throw new Error(`${err.message}; the server's last warnings: ${JSON.stringify(complaints)}`);
    });
    expect(shard.status).toBe(200);
    expect(shard.json).toMatchObject({ table: 'events', shard: 0, poison: null, sealed: [] });
    expect(shard.json.committed.length).toBeGreaterThan(0);
    for (const field of [
      'frontier',
      'walCursor',
      'currentGeneration',
      'mergedThrough',
      'pendingGenerations',
    ]) {
      expect(typeof shard.json[field]).toBe('number');
    }
    const described = await call('GET', '/v1/tables/events', { token: tokens.read });
    expect(described.json.stats).toMatchObject({ poisonedShards: 0, committedRows: expect.any(Number) });
    expect((await call('GET', '/v1/tables/events/shards/7', { token: tokens.read })).json.error.code).toBe(
      'SHARD_NOT_FOUND',
    );
    expect((await call('GET', '/v1/tables/events/rows?key=15', { token: tokens.read })).json.row).toEqual(
      eventRows(15, 15)[0],
    );
  });

  it('POST reopen needs admin, and a healthy shard is refused with 409 SHARD_NOT_POISONED', async () => {
    expect((await call('POST', '/v1/tables/events/shards/0/reopen', { token: tokens.write })).status).toBe(
      403,
    );
    const reopened = await call('POST', '/v1/tables/events/shards/0/reopen', { token: tokens.admin });
    expect(reopened).toMatchObject({ status: 409, json: { error: { code: 'SHARD_NOT_POISONED' } } });
  });

  it('Idempotency-Key: a retry with the same body gets the first ack and writes nothing; another body is 409', async () => {
    const request = {
      token: tokens.write,
      json: { rows: eventRows(100, 104) },
      headers: { 'idempotency-key': 'batch-100-104' },
    };
    const first = await call('POST', '/v1/tables/events/rows', request);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await allocated('events', 2);

    const retry = await call('POST', '/v1/tables/events/rows', request);
    expect(retry.status).toBe(200);
    expect(retry.json).toEqual(first.json);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await allocated('events', 2)).toBe(before);

    const other = await call('POST', '/v1/tables/events/rows', {
      ...request,
      json: { rows: eventRows(100, 105) },
    });
    expect(other).toMatchObject({ status: 409, json: { error: { code: 'IDEMPOTENCY_CONFLICT' } } });
    const asDelete = await call('DELETE', '/v1/tables/events/rows', {
      ...request,
      json: { keys: [100] },
    });
    expect(asDelete).toMatchObject({ status: 409, json: { error: { code: 'IDEMPOTENCY_CONFLICT' } } });
    expect(await allocated('events', 2)).toBe(before);

    const deleteKey = {
      token: tokens.write,
      json: { keys: [100] },
      headers: { 'idempotency-key': 'del-100' },
    };
    const deleted = await call('DELETE', '/v1/tables/events/rows', deleteKey);
    const afterDelete = await allocated('events', 2);
    expect(await call('DELETE', '/v1/tables/events/rows', deleteKey)).toMatchObject({
      status: 200,
      json: deleted.json,
    });
    expect(await allocated('events', 2)).toBe(afterDelete);
  });

  it('dead letters over HTTP: an empty first page, 404 JOB_NOT_FOUND for an unknown letter and its retry', async () => {
    const page = await call('GET', '/v1/dead-letters?limit=10', { token: tokens.admin });
    expect(page).toMatchObject({ status: 200, json: { items: [], next: null } });
    const get = await call('GET', '/v1/dead-letters/flush-12345', { token: tokens.admin });
    expect(get).toMatchObject({ status: 404, json: { error: { code: 'JOB_NOT_FOUND' } } });
    const retry = await call('POST', '/v1/dead-letters/flush-12345/retry', { token: tokens.admin });
    expect(retry).toMatchObject({ status: 404, json: { error: { code: 'JOB_NOT_FOUND' } } });
  });

  it('logs every request with its id and never a token or a body', async () => {
    const marker = 'needle-in-the-body';
    await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { rows: [{ id: 500, name: marker, value: 1 }] },
      headers: { 'x-request-id': 'test-request-1' },
    });
    const line = await waitFor(
      () => server.lines.find((l) => l.reqId === 'test-request-1' && l.msg === 'request'),
      {
        message: 'the request log line',
      },
    );
    expect(line).toMatchObject({ method: 'POST', route: '/v1/tables/:t/rows', status: 200, table: 'events' });
    const everything = JSON.stringify(server.lines);
    for (const secret of [tokens.read, tokens.write, tokens.admin, tokens.all, marker]) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('dead letters of a shard that really failed (in-process server on the fault store)', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;
  let letters: Queue<DeadLetter>;

  beforeEach(async () => {
    served = await serveTestApi({
      flush: { maxRetries: 2, retryBaseMs: 5, retryMaxMs: 20 },
      port: 0,
    });
    ({ h, tokens, call } = served);
    letters = new DeadLetterQueue(h.config).queue;
  });

  afterEach(async () => {
    await letters.close();
    await served.close();
  });

  it('lists, pages and reads letters read-only (I17), refuses a retry while poisoned, retries after reopen', async () => {
    await h.createTable(eventsTable('broken', { shards: 3 }));
    const broken = h.store.inject({
      op: 'put',
      key: `${prefixGlob(generationPrefix, 'broken', '*')}*`,
      fault: 'fail',
      permanent: true,
    });
    h.startWorkers();
    const write = await call('POST', '/v1/tables/broken/rows', {
      token: tokens.write,
      json: { rows: eventRows(1, 30) },
    });
    expect(write.json.shards).toHaveLength(3);
    await waitFor(async () => (await letters.count()) === 3, {
      message: 'three dead letters',
      timeoutMs: 20_000,
    });

    const snapshot = async () => {
      const jobs = [
        ...(await letters.getJobs(['waiting'])),
        ...(await h.scheduler.flush.getJobs(['failed'])),
      ];
      const states = await Promise.all(
        jobs.map(async (j) => ({
          id: j.id,
          state: await j.getState(),
          attempts: j.attemptsMade,
          data: j.data,
        })),
      );
      return {
        states: states.sort((a, b) => String(a.id).localeCompare(String(b.id))),
        letters: await letters.getJobCounts(),
        flush: await h.scheduler.flush.getJobCounts(),
      };
    };
    const before = await snapshot();

    const page = await call('GET', '/v1/dead-letters', { token: tokens.admin });
    expect(page.status).toBe(200);
    expect(page.json.next).toBeNull();
    expect(page.json.items).toHaveLength(3);
    const [first] = page.json.items;
    expect(first).toMatchObject({
      id: expect.stringMatching(/^flush-/),
      queue: 'flush',
      target: expect.stringMatching(/^broken\/\d$/),
      jobName: 'flush',
      data: { table: 'broken', shard: expect.any(Number) },
      error: { code: 'STORE_UNAVAILABLE' },
      attempts: 3,
      stack: expect.any(String),
      enqueuedAt: expect.any(String),
      failedAt: expect.any(String),
    });

    const paged: string[] = [];
    let after = '';
    for (;;) {
      const one = await call('GET', `/v1/dead-letters?limit=1${after ? `&after=${after}` : ''}`, {
        token: tokens.admin,
      });
      expect(one.json.items).toHaveLength(1);
      paged.push(one.json.items[0].id);
      if (!one.json.next) break;
      after = one.json.next;
    }
    expect(paged).toEqual(page.json.items.map((i: { id: string }) => i.id));

    const got = await call('GET', `/v1/dead-letters/${first.id}`, { token: tokens.admin });
    expect(got).toMatchObject({ status: 200, json: first });
    expect(await snapshot()).toEqual(before);

    const refused = await call('POST', `/v1/dead-letters/${first.id}/retry`, { token: tokens.admin });
    expect(refused).toMatchObject({
      status: 409,
      json: { error: { code: 'SHARD_STILL_POISONED', details: { poison: { code: 'STORE_UNAVAILABLE' } } } },
    });
    expect(await letters.count()).toBe(3);

    broken.remove();
    const shard = first.data.shard as number;
    const reopened = await call('POST', `/v1/tables/broken/shards/${shard}/reopen`, { token: tokens.admin });
    expect(reopened).toMatchObject({ status: 200, json: { shard, poison: null } });
    const retried = await call('POST', `/v1/dead-letters/${first.id}/retry`, { token: tokens.admin });
    expect(retried).toMatchObject({
      status: 202,
      json: { id: first.id, queue: 'flush', status: 'requeued' },
    });
    expect((await call('GET', `/v1/dead-letters/${first.id}`, { token: tokens.admin })).status).toBe(404);
    expect(await letters.count()).toBe(2);
    await waitFor(
      async () => {
        const stats = await call('GET', `/v1/tables/broken/shards/${shard}`, { token: tokens.read });
        return stats.json.committed.length === 1 && stats.json.sealed.length === 0;
      },
      { message: 'the reopened shard flushed' },
    );
  });

  it('a page cursor survives the retry of every letter before it', async () => {
    const broken = h.store.inject({
      op: 'put',
      key: `${prefixGlob(generationPrefix, '*', 0)}*`,
      fault: 'fail',
      permanent: true,
    });
    h.startWorkers();
    // One after the other, so the letters fail in a known order.
    for (const [index, name] of ['p1', 'p2', 'p3'].entries()) {
      await h.createTable(eventsTable(name));
      await call('POST', `/v1/tables/${name}/rows`, { token: tokens.write, json: { rows: eventRows(1, 3) } });
      await waitFor(async () => (await letters.count()) === index + 1, { message: `dead letter of ${name}` });
    }
    const all = (await call('GET', '/v1/dead-letters', { token: tokens.admin })).json.items;
    expect(all.map((l: { target: string }) => l.target)).toEqual(['p1/0', 'p2/0', 'p3/0']);
    const firstTwo = await call('GET', '/v1/dead-letters?limit=2', { token: tokens.admin });
    broken.remove();
    for (const letter of firstTwo.json.items as Array<{ id: string; data: { table: string } }>) {
      await call('POST', `/v1/tables/${letter.data.table}/shards/0/reopen`, { token: tokens.admin });
      expect(
        (await call('POST', `/v1/dead-letters/${letter.id}/retry`, { token: tokens.admin })).status,
      ).toBe(202);
    }
    const rest = await call('GET', `/v1/dead-letters?limit=2&after=${firstTwo.json.next}`, {
      token: tokens.admin,
    });
    expect(rest.json).toEqual({ items: [all[2]], next: null });
  });
});

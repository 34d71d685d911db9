/**
 * The TypeScript client against real server processes. A proxy on loopback between the
 * client and the server drops a connection after the server answered, so the client sees
 * a lost connection for a write that landed; the retry with the same Idempotency-Key must
 * not land it twice. Backpressure is real too: a shard with a 1-byte unsealed budget
 * answers 429 until the seal job catches up.
 */
import { Field, Int64, RecordBatch, Schema, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSluiceApiError, SluiceApiError, SluiceClient } from '../../clients/typescript/src/index.ts';
import { type HttpProxy, type ProxyAction, startHttpProxy } from '../support/http-proxy.ts';
import { type ServedProcess, serveProcess, upsertedRows } from '../support/server-process.ts';

const events = {
  name: 'events',
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8', nullable: true },
    ],
  },
  primaryKey: ['id'],
  shards: 2,
};

const rowsOf = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, name: `n${from + i}` }));

/** The table's exact Arrow schema: an int64 key that is not nullable, a plain (not dictionary) utf8 column. */
function arrowTable(ids: bigint[]): Table {
  const schema = new Schema([new Field('id', new Int64(), false), new Field('name', new Utf8(), true)]);
  const columns = new Table({
    id: vectorFromArray(ids, new Int64()),
    name: vectorFromArray(
      ids.map((id) => `a${id}`),
      new Utf8(),
    ),
  });
  return new Table(
    schema,
    columns.batches.map((b) => new RecordBatch(schema, b.data)),
  );
}

const isRowWrite = (method: string, path: string) => method === 'POST' && path.endsWith('/rows');

describe('SluiceClient over a real server', () => {
  let served: ServedProcess;
  let proxy: HttpProxy;
  let client: SluiceClient;
  /** What the proxy does to the next row writes, first to last; forward once it is empty. */
  const plan: ProxyAction[] = [];

  beforeAll(async () => {
    served = await serveProcess('client', { role: 'api' });
    proxy = await startHttpProxy(served.server.url, (req) =>
      isRowWrite(req.method, req.path) ? (plan.shift() ?? 'forward') : 'forward',
    );
    client = new SluiceClient({ url: proxy.url, token: served.tokens.all, retry: { baseMs: 10 } });
    await client.createTable(events);
  });

  afterAll(async () => {
    await proxy?.close();
    expect(await served?.stop()).toBe(0);
  });

  it('retries a write whose answer was lost with the connection, and it lands once', async () => {
    const before = await upsertedRows(served);
    const seenBefore = proxy.seen.length;
    plan.push('drop');
    const result = await client.write('events', rowsOf(0, 500));
    expect(result).toEqual({ acked: 500, batches: 1, replayed: 1 });
    const writes = proxy.seen.slice(seenBefore).filter((r) => isRowWrite(r.method, r.path));
    expect(writes.map((r) => [r.action, r.status])).toEqual([
      ['drop', 200],
      ['forward', 200],
    ]);
    expect(writes[0]!.headers['idempotency-key']).toBeDefined();
    expect(writes[1]!.headers['idempotency-key']).toBe(writes[0]!.headers['idempotency-key']);
    expect(await upsertedRows(served)).toBe(before + 500);
    expect(await client.lookup('events', 499)).toEqual({ id: 499, name: 'n499' });
  });

  it('cuts an Arrow table into batches, one key each, and a repeated write with its key lands nothing', async () => {
    const before = await upsertedRows(served);
    const seenBefore = proxy.seen.length;
    const ids = Array.from({ length: 2500 }, (_, i) => BigInt(10_000 + i));
    const table = arrowTable(ids);
    const options = { idempotencyKey: 'arrow-load', batch: { maxRows: 1000 } };
    expect(await client.write('events', table, options)).toEqual({ acked: 2500, batches: 3, replayed: 0 });
    const keys = proxy.seen.slice(seenBefore).map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual(['arrow-load.0', 'arrow-load.1', 'arrow-load.2']);
    expect(await client.write('events', table, options)).toEqual({ acked: 2500, batches: 3, replayed: 3 });
    expect(await upsertedRows(served)).toBe(before + 2500);
  });

  it('cuts JSON rows by bytes as well as rows', async () => {
    const seenBefore = proxy.seen.length;
    const rows = rowsOf(20_000, 300).map((r) => ({ ...r, name: 'x'.repeat(1000) }));
    const result = await client.write('events', rows, { batch: { maxRows: 1000, maxBytes: 100_000 } });
    expect(result.acked).toBe(300);
    expect(result.batches).toBe(4);
    for (const r of proxy.seen.slice(seenBefore))
      expect(Number(r.headers['content-length'])).toBeLessThanOrEqual(100_000);
  });

  it('scans rows and Arrow batches page by page, and looks keys up', async () => {
    const ids: number[] = [];
    for await (const row of client.scan('events', { pageSize: 333 })) ids.push(row.id as number);
    expect(ids.length).toBe(500 + 2500 + 300);
    expect(new Set(ids).size).toBe(ids.length);
    let arrowRows = 0;
    for await (const batch of client.scanBatches('events', { pageSize: 1000 })) arrowRows += batch.numRows;
    expect(arrowRows).toBe(ids.length);
    expect(await client.lookup('events', 12_499)).toEqual({ id: 12_499, name: 'a12499' });
    expect(await client.lookup('events', 5)).toEqual({ id: 5, name: 'n5' });
    expect(await client.lookup('events', 999_999)).toBeNull();
  });

  it('scans a key range in chosen columns, looks several keys up at once and counts rows', async () => {
    const ids: number[] = [];
    for await (const row of client.scan('events', { pageSize: 7, from: 100, to: 130, columns: ['id'] })) {
      expect(Object.keys(row)).toEqual(['id']);
      ids.push(row.id as number);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 100 + i));
    let arrowRows = 0;
    for await (const batch of client.scanBatches('events', { from: 100, to: 130, columns: ['name'] })) {
      expect(batch.schema.fields.map((f) => f.name)).toEqual(['name']);
      arrowRows += batch.numRows;
    }
    expect(arrowRows).toBe(30);
    expect(await client.lookup('events', 5, { columns: ['name'] })).toEqual({ name: 'n5' });
    expect(await client.lookupMany('events', [5, 999_999, 12_499], { columns: ['id'] })).toEqual({
      rows: [{ id: 5 }, { id: 12_499 }],
      missing: [999_999],
    });
    expect((await client.countRows('events')).rows).toBe(500 + 2500 + 300);
  });

  it('deletes by key, and describes, lists and reads shard stats', async () => {
    expect((await client.deleteRows('events', [0, 1, 2])).acked).toBe(3);
    expect(await client.lookup('events', 1)).toBeNull();
    const described = await client.describeTable('events');
    expect(described.primaryKey).toEqual(['id']);
    const names: string[] = [];
    for await (const t of client.listTables()) names.push(t.name);
    expect(names).toEqual(['events']);
    const shards = await client.tableShards('events');
    expect(shards.map((s) => s.shard)).toEqual([0, 1]);
    expect(shards.every((s) => s.poison === null)).toBe(true);
  });

  it('throws one typed error carrying the API code', async () => {
    const err = await client.createTable(events).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SluiceApiError);
    expect(err).toMatchObject({ code: 'TABLE_EXISTS', status: 409 });
    expect((err as SluiceApiError).requestId).toMatch(/.+/);
    const bad = await client.write('events', [{ id: 'x' }]).catch((e: unknown) => e);
    expect(isSluiceApiError(bad, 'INVALID_ROWS')).toBe(true);
    const unreachable = new SluiceClient({ url: 'http://127.0.0.1:1', retry: { attempts: 2, baseMs: 1 } });
    await expect(unreachable.describeTable('events')).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
    });
  });
});

describe('SluiceClient under backpressure', () => {
  let served: ServedProcess;

  beforeAll(async () => {
    served = await serveProcess('client-429', { role: 'all', env: { SLUICE_MAX_UNSEALED_BYTES: '1' } });
  });

  afterAll(async () => {
    expect(await served?.stop()).toBe(0);
  });

  it('waits out 429 Retry-After and lands every batch', async () => {
    const proxy = await startHttpProxy(served.server.url, () => 'forward');
    try {
      const client = new SluiceClient({ url: proxy.url, token: served.tokens.all });
      await client.createTable({ ...events, shards: 1, settings: { sealDelayMs: 1500 } });
      const result = await client.write('events', rowsOf(0, 30), { batch: { maxRows: 10 } });
      expect(result).toEqual({ acked: 30, batches: 3, replayed: 0 });
      const writes = proxy.seen.filter((r) => isRowWrite(r.method, r.path));
      expect(writes.some((r) => r.status === 429)).toBe(true);
      expect(writes.filter((r) => r.status === 200).length).toBe(3);
      expect(await upsertedRows(served)).toBe(30);
    } finally {
      await proxy.close();
    }
  });
});

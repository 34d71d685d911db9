/**
 * Sluice on the object stores it meets: the whole flow on an S3 Express-like bucket (no
 * key order in listings, no StartAfter) and with the WAL on a second endpoint, and a store
 * that ignores conditional writes refused before anything is accepted.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { collectTable } from '../../shared/lsm/gc.ts';
import { assertConditionalWrites } from '../../shared/store/conditional-probe.ts';
import type { ObjectStore } from '../../shared/store/object-store.ts';
import { S3Store } from '../../shared/store/s3-store.ts';
import { WalRoutedStore, walReach } from '../../shared/store/wal-routed-store.ts';
import { tableWalKey, walKey } from '../../shared/table/paths.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { testRedisUrl } from '../support/redis.ts';
import { eventRows, eventsTable, flushedGeneration, readAll } from '../support/rows.ts';
import { openS3Runtime, s3Config } from '../support/s3-runtime.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';

const servers: S3TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function server(options: Parameters<typeof startS3Server>[0] = {}) {
  const started = await startS3Server(options);
  servers.push(started);
  return started;
}

function rawStore(s3: S3TestServer, bucket = s3.bucket): ObjectStore {
  return new S3Store({
    bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: s3.credentials,
    unorderedListing: true,
  });
}

async function keysOf(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of store.list(prefix)) keys.push(...page.map((m) => m.key));
  return keys;
}

/**
 * Create two tables, write, delete, flush, merge, read back, list (beside the tables in
 * `others`), and collect garbage past the grace: every WAL entry flushed goes, however the
 * store lists.
 */
async function wholeFlow(opened: ReturnType<typeof openS3Runtime>, others: string[] = []) {
  const { sluice } = opened.runtime;
  for (const name of ['beta', 'alpha']) await sluice.tables.create(eventsTable(name, { shards: 2 }));
  for (let g = 1; g <= 3; g++) await flushedGeneration(sluice, 'alpha', eventRows(g * 10, g * 10 + 9, g));
  const def = await sluice.tables.describe('beta');
  await sluice.writes.append('beta', jsonRowsToRecordBatch(def.schema, eventRows(1, 5)));
  await sluice.writes.delete('alpha', [10, 11]);
  for (let shard = 0; shard < 2; shard++) {
    await sluice.shards.seal('alpha', shard);
    await sluice.shards.flush('alpha', shard);
  }
  expect((await sluice.tableWork.merge('alpha')).merged.length).toBeGreaterThan(0);
  const expected = [...eventRows(12, 19, 1), ...eventRows(20, 29, 2), ...eventRows(30, 39, 3)];
  expect(await readAll(sluice, 'alpha', 7)).toEqual(expected);
  expect(await readAll(sluice, 'beta', 2)).toEqual(eventRows(1, 5));
  expect((await sluice.tables.list({ limit: 1 })).items.map((t) => t.name)).toEqual(['alpha']);
  expect((await sluice.tables.list()).items.map((t) => t.name)).toEqual(['alpha', 'beta', ...others]);
  const { parts } = opened.runtime;
  const alpha = await sluice.tables.describe('alpha');
  const walOf = async () => [
    ...(await keysOf(parts.store, 'tables/alpha/shards/0/wal/')),
    ...(await keysOf(parts.store, 'tables/alpha/shards/1/wal/')),
  ];
  const before = await walOf();
  const collected = await collectTable(parts, alpha, { now: Date.now() + 3_600_000, graceMs: 1_000 });
  expect(collected.wal).toBe(before.length);
  expect(await walOf()).toEqual([]);
  expect(await readAll(sluice, 'alpha', 7)).toEqual(expected);
}

describe('object store layouts', () => {
  it('an S3 Express-like bucket: the whole flow, with the store sorting the listings itself', async () => {
    const s3 = await server({ express: true });
    const opened = openS3Runtime(s3, { express: true });
    try {
      await wholeFlow(opened);
    } finally {
      await opened.close();
    }
  });

  it('the WAL on a second endpoint: WAL entries there and nowhere else, the rest on the first', async () => {
    const tables = await server();
    // Named like a directory bucket, the AWS SDK would ask the server for an S3 Express session.
    const wal = await server({ bucket: 'wal-zone', express: true });
    const opened = openS3Runtime(tables, { express: true, wal: { server: wal, bucket: 'wal-zone' } });
    try {
      const { sluice } = opened.runtime;
      await sluice.tables.create(eventsTable('split', { shards: 2 }));
      const def = await sluice.tables.describe('split');
      await sluice.writes.append('split', jsonRowsToRecordBatch(def.schema, eventRows(1, 20)));
      const walKeys = await keysOf(rawStore(wal, 'wal-zone'), 'wal/tables/split/');
      expect(walKeys.length).toBeGreaterThan(0);
      expect(walKeys.every((k) => k.includes('/wal/'))).toBe(true);
      expect(
        (await keysOf(rawStore(tables), 'sluice/tables/split/')).filter((k) => k.includes('/wal/')),
      ).toEqual([]);
      await wholeFlow(opened, ['split']);
    } finally {
      await opened.close();
    }
  });

  it('routes by key: WAL keys to the WAL store, listings that may hold both to both', () => {
    expect(walReach('tables/t/shards/0/wal/00000000000000000001.arrow')).toBe('all');
    expect(walReach('tables/t/shards/0/wal/')).toBe('all');
    expect(walReach('tables/t/wal/00000000000000000001.arrow')).toBe('all');
    expect(walReach('tables/t/wal/')).toBe('all');
    expect(walReach('tables/t/wal-lane.json')).toBe('none');
    expect(walReach('tables/t/shards/0/gen/00000000000000000001.arrow')).toBe('none');
    expect(walReach('tables/t/table.json')).toBe('none');
    expect(walReach('_sluice/probe/x')).toBe('none');
    expect(
      [
        '',
        'tables/',
        'tables/t/',
        'tables/t/shards/0/',
        'tables/t/shards/0/w',
        'tables/t/w',
        'tables/t/wal',
      ].map(walReach),
    ).toEqual(['some', 'some', 'some', 'some', 'some', 'some', 'some']);
  });

  it('routes table-lane entries to the WAL store; a listing of the table merges both stores in key order', async () => {
    const tables = new MemoryStore();
    const wal = new MemoryStore();
    const store = new WalRoutedStore(tables, wal);
    const body = new Uint8Array([1]);
    const laneKeys = [tableWalKey('t', 1), tableWalKey('t', 2)];
    for (const key of [...laneKeys, walKey('t', 0, 1), 'tables/t/table.json', 'tables/t/wal-lane.json']) {
      await store.put(key, body);
    }
    expect(wal.keys()).toEqual([walKey('t', 0, 1), ...laneKeys]);
    expect(tables.keys()).toEqual(['tables/t/table.json', 'tables/t/wal-lane.json']);
    expect((await store.get(laneKeys[0]!))?.body).toEqual(body);
    expect(await keysOf(store, 'tables/t/')).toEqual([
      walKey('t', 0, 1),
      'tables/t/table.json',
      'tables/t/wal-lane.json',
      ...laneKeys,
    ]);
    expect(await keysOf(store, 'tables/t/wal/')).toEqual(laneKeys);
  });

  it('a store that ignores conditional writes is refused, naming the store and what it lacks', async () => {
    const s3 = await server({ ignoresConditions: true });
    const store = rawStore(s3);
    await expect(assertConditionalWrites(store)).rejects.toMatchObject({
      code: 'STORE_UNSAFE',
      message: expect.stringContaining(`${store.url} does not honour put-if-absent`),
    });
    await expect(assertConditionalWrites(rawStore(await server()))).resolves.toBeUndefined();
  });

  it('npm start against a store that ignores conditional writes exits non-zero within seconds, saying why', async () => {
    const s3 = await server({ ignoresConditions: true });
    const config = s3Config(s3);
    const env = {
      ...process.env,
      SLUICE_STORE_URL: config.storeUrl,
      SLUICE_S3_ENDPOINT: s3.endpoint,
      SLUICE_S3_REGION: s3.region,
      SLUICE_S3_FORCE_PATH_STYLE: 'true',
      SLUICE_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      SLUICE_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      SLUICE_REDIS_URL: testRedisUrl,
      SLUICE_PORT: '0',
      SLUICE_LOG_PRETTY: 'false',
    };
    const began = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], { env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(output).toContain(`sluice: ${config.storeUrl} does not honour put-if-absent (If-None-Match: *)`);
    expect(output).not.toContain('sluice ready');
  }, 30_000);
});

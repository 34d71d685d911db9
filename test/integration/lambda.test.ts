/**
 * The Lambda handler (functions/lambda.ts) invoked with API Gateway v2 / Function URL
 * events of the recorded shape (test/fixtures/lambda/), on a Redis namespace and a store
 * directory of the test's own: create a table, write JSON, write Arrow (a base64 body),
 * read Arrow (a base64 answer).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LambdaApi, openLambda } from '../../functions/lambda.ts';
import { tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import { loadConfig } from '../../shared/config.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

/** The token every fixture event carries. */
const FIXTURE_TOKEN = 'sluice-lambda-fixture-token';

/** The fields of an API Gateway v2 / Function URL event that the tests touch. */
interface V2Event {
  headers: Record<string, string>;
  body?: string;
}

interface LambdaResult {
  statusCode: number;
  body: string;
  isBase64Encoded: boolean;
  headers?: Record<string, string>;
}

function fixture(name: string): V2Event {
  return JSON.parse(readFileSync(new URL(`../fixtures/lambda/${name}.json`, import.meta.url), 'utf8'));
}

describe('Lambda handler with API Gateway v2 events', () => {
  let dir: TempDir;
  let namespace: RedisNamespace;
  let lambda: LambdaApi;

  const send = async (event: V2Event) =>
    (await lambda.handler(event as unknown as Parameters<LambdaApi['handler']>[0])) as LambdaResult;
  const invoke = (name: string) => send(fixture(name));

  beforeAll(async () => {
    dir = await createTempDir('lambda');
    namespace = createRedisNamespace();
    const sha256 = createHash('sha256').update(FIXTURE_TOKEN).digest('hex');
    lambda = openLambda(
      loadConfig(
        {},
        {
          redisUrl: namespace.url,
          redisPrefix: namespace.prefix,
          storeUrl: `file://${dir.path}`,
          logLevel: 'silent',
          tokens: [{ name: 'fixture', sha256, scopes: ['read', 'write', 'admin'] }],
        },
      ),
    );
  });

  afterAll(async () => {
    await lambda?.close();
    await namespace?.cleanup();
    await dir?.cleanup();
  });

  it('refuses to start without tokens: a function URL must never run with auth off', () => {
    expect(() => openLambda(loadConfig({}, { tokens: [] }))).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });

  it('create: 201 with the table description as JSON', async () => {
    const created = await invoke('create-table');
    expect(created.statusCode).toBe(201);
    expect(created.isBase64Encoded).toBe(false);
    expect(created.headers?.['content-type']).toContain('application/json');
    expect(JSON.parse(created.body)).toMatchObject({ name: 'lambda_events', primaryKey: ['id'], shards: 2 });
  });

  it('JSON write: acked', async () => {
    const written = await invoke('write-json');
    expect(written.statusCode).toBe(200);
    expect(JSON.parse(written.body)).toMatchObject({ acked: 3 });
    const again = await invoke('write-json');
    expect(again.headers?.['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.body)).toEqual(JSON.parse(written.body));
  });

  it('Arrow write: the base64 body is decoded and acked', async () => {
    const written = await invoke('write-arrow');
    expect(written.statusCode).toBe(200);
    expect(JSON.parse(written.body)).toMatchObject({ acked: 3 });
  });

  it('Arrow read: the stream comes back base64-encoded and holds every row', async () => {
    const read = await invoke('read-arrow');
    expect(read.statusCode).toBe(200);
    expect(read.isBase64Encoded).toBe(true);
    expect(read.headers?.['content-type']).toBe('application/vnd.apache.arrow.stream');
    const create = JSON.parse(fixture('create-table').body as string);
    const schema = parseTableSchema(create.schema, create.primaryKey);
    const rows = tableToJsonRows(schema, tableFromIPC(Buffer.from(read.body, 'base64')));
    expect(rows).toEqual([
      { id: 1, name: 'one', at: 1795953600000 },
      { id: 2, name: 'two', at: null },
      { id: 4, name: 'four', at: 1795953604000 },
      { id: 5, name: 'five', at: null },
      { id: 6, name: 'six', at: 1795953606000 },
      { id: '9007199254740993', name: 'big', at: Date.parse('2026-11-29T12:00:00.000Z') },
    ]);
  });

  it('errors keep the JSON envelope', async () => {
    const event = fixture('read-arrow');
    const denied = await send({ ...event, headers: { ...event.headers, authorization: 'Bearer wrong' } });
    expect(denied.statusCode).toBe(401);
    expect(denied.isBase64Encoded).toBe(false);
    expect(JSON.parse(denied.body)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });
});

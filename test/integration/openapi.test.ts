/**
 * The OpenAPI document: served without a token, valid OpenAPI 3.1, naming exactly the
 * routes the app serves, with a reference page beside it; the schemas it is made of
 * describe what the API really answers; and the client's committed wire types are what a
 * fresh generation from it gives.
 */
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, openApi } from '../../functions/app.ts';
import { CLIENT_TYPES_PATH, clientTypesSource } from '../../functions/openapi/client-types.ts';
import { openApiDocument, openApiPath, routeId } from '../../functions/openapi/document.ts';
import {
  AckSchema,
  ErrorBodySchema,
  LookupManySchema,
  RowCountSchema,
  ScanPageSchema,
  ShardStatsSchema,
  TableDescriptionSchema,
  TablePageSchema,
} from '../../functions/openapi/schemas.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { harnessRuntime } from '../support/harness-api.ts';
import { testTokens } from '../support/http-client.ts';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

// biome-ignore lint/suspicious/noExplicitAny: the tests read the document and answers as they come.
type Json = any;

const jsonOf = async (res: Response): Promise<Json> => res.json();

function documentRoutes(doc: { paths?: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => routeId(m, path)),
  );
}

describe('OpenAPI document', () => {
  let h: Harness;
  let api: Api;
  const tokens = testTokens();
  const auth = { authorization: `Bearer ${tokens.all}` };

  beforeAll(async () => {
    h = await createHarness({ tokens: JSON.parse(tokens.env) });
    api = openApi(harnessRuntime(h));
  });

  afterAll(async () => {
    await api?.close();
    await h?.close();
  });

  const served = () =>
    api.app.routes.filter((r) => r.method !== 'ALL').map((r) => routeId(r.method, openApiPath(r.path)));

  it('is served without a token and validates as OpenAPI 3.1', async () => {
    const res = await api.app.request('/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = await jsonOf(res);
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the routes the app serves', async () => {
    const doc = await jsonOf(await api.app.request('/v1/openapi.json'));
    expect(new Set(documentRoutes(doc))).toEqual(new Set(served()));
    expect(documentRoutes(doc).length).toBe(new Set(served()).size);
  });

  it('names an error answer for every status a route can refuse with, and the scope it needs', async () => {
    const doc = await jsonOf(await api.app.request('/v1/openapi.json'));
    const upsert = doc.paths['/v1/tables/{t}/rows'].post;
    expect(Object.keys(upsert.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '413', '415', '429', '503', '504']),
    );
    expect(upsert.responses['429'].description).toContain('BACKPRESSURE');
    expect(upsert.responses['429'].headers['Retry-After']).toBeDefined();
    expect(upsert.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
  });

  it('serves a reference page beside it', async () => {
    const res = await api.app.request('/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('/v1/openapi.json');
  });

  it('describes what the API answers', async () => {
    const create = {
      name: 'described',
      schema: {
        fields: [
          { name: 'id', type: 'int64' },
          { name: 'v', type: 'utf8' },
        ],
      },
      primaryKey: ['id'],
      shards: 2,
    };
    const post = (path: string, body: unknown) =>
      api.app.request(path, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const get = (path: string) => api.app.request(path, { headers: auth });
    const created = await post('/v1/tables', create);
    expect(created.status).toBe(201);
    TableDescriptionSchema.parse(await created.json());
    AckSchema.parse(await (await post('/v1/tables/described/rows', { rows: [{ id: 1, v: 'a' }] })).json());
    TablePageSchema.parse(await (await get('/v1/tables')).json());
    ShardStatsSchema.parse(await (await get('/v1/tables/described/shards/0')).json());
    ScanPageSchema.parse(await (await get('/v1/tables/described/rows?limit=10')).json());
    ScanPageSchema.parse(await (await get('/v1/tables/described/rows?from=0&to=5&columns=v')).json());
    const lookup = LookupManySchema.parse(
      await (await post('/v1/tables/described/rows/lookup', { keys: [1, 2] })).json(),
    );
    expect(lookup.missing).toEqual([2]);
    RowCountSchema.parse(await (await get('/v1/tables/described/rows/count')).json());
    const refused = await post('/v1/tables', create);
    expect(refused.status).toBe(409);
    expect(ErrorBodySchema.parse(await refused.json()).error.code).toBe('TABLE_EXISTS');
  });

  it('refuses a drain body its wire schema does not take, with what to send', async () => {
    const res = await api.app.request('/v1/tables/described/drain', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ drain: 'yes' }),
    });
    expect(res.status).toBe(400);
    const { error } = await jsonOf(res);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('send {"drain": true} or {"drain": false}');
  });

  it('refuses what the wire schemas of a route do not take, with the domain codes and what to send', async () => {
    const send = (method: string, path: string, body?: unknown) =>
      api.app.request(path, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const refusal = async (res: Response) => ({ status: res.status, ...(await jsonOf(res)).error });
    const array = await refusal(await send('POST', '/v1/tables', [{ name: 'x' }]));
    expect(array).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(array.message).toMatch(/^the body is a JSON array: send \{"name":…,"schema":/);
    const keyless = await refusal(
      await send('POST', '/v1/tables', {
        name: 'keyless',
        schema: { fields: [{ name: 'id', type: 'int64' }] },
        primaryKey: 'id',
      }),
    );
    expect(keyless).toMatchObject({ status: 400, code: 'INVALID_SCHEMA', details: { path: ['primaryKey'] } });
    expect(keyless.message).toMatch(
      /^primaryKey must be an array of column names, or \[\] for an append-only table: send /,
    );
    const unnamed = await refusal(await send('POST', '/v1/tables', { name: 'a/b' }));
    expect(unnamed).toMatchObject({ status: 400, code: 'INVALID_TABLE_NAME' });
    expect(unnamed.message).toContain('invalid table name "a/b": use 1 to 128 of A-Z a-z 0-9 _ . -');
    const extra = await refusal(
      await send('POST', '/v1/tables/described/rows', { rows: [{ id: 2 }], table: 'x' }),
    );
    expect(extra).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(extra.message).toMatch(/^unknown property "table": send \{"rows":\[/);
    const shard = await refusal(await send('GET', '/v1/tables/described/shards/first'));
    expect(shard).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: { path: ['s'] } });
    expect(shard.message).toBe('the shard must be a shard index (0, 1, …)');
    const limit = await refusal(await send('GET', '/v1/scheduler/cooldowns?limit=257'));
    expect(limit).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: { max: 256 } });
    expect(limit.message).toBe('limit must be an integer from 1 to 256');
    const key = await refusal(
      await api.app.request('/v1/tables/described/rows', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(256) },
        body: JSON.stringify({ rows: [{ id: 3, v: 'c' }] }),
      }),
    );
    expect(key).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(key.message).toBe('Idempotency-Key must be 1 to 255 printable ASCII characters');
  });

  it('describes each parameter by the schema the handler parses it with', async () => {
    const doc = await jsonOf(await api.app.request('/v1/openapi.json'));
    const parameter = (path: string, method: string, name: string) =>
      doc.paths[path][method].parameters.find((p: { name: string }) => p.name === name);
    expect(parameter('/v1/tables/{t}/shards/{s}', 'get', 's').schema.pattern).toBe('^\\d{1,5}$');
    expect(parameter('/v1/tables/{t}', 'get', 't').schema.$ref).toBe('#/components/schemas/TableName');
    expect(parameter('/v1/scheduler/cooldowns', 'get', 'limit').schema.description).toBe(
      'Items per page: 1 to 256, 256 when absent.',
    );
    expect(parameter('/v1/tables/{t}/rows', 'post', 'idempotency-key').in).toBe('header');
  });

  it("is what the client's committed wire types were generated from", async () => {
    expect(await clientTypesSource()).toBe(await readFile(CLIENT_TYPES_PATH, 'utf8'));
  });

  it('holds every route of the full contract, the served ones among them', () => {
    const full = new Set(documentRoutes(openApiDocument() as never));
    for (const route of served()) expect(full).toContain(route);
  });
});

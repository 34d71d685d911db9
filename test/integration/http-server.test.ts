/**
 * The local server and the edges of the error mapping, in this process over real HTTP:
 * where it may listen without tokens, the request deadline, backpressure's Retry-After,
 * and what an unexpected error shows a client.
 */
import { Writable } from 'node:stream';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openApi } from '../../functions/app.ts';
import { errorResponse } from '../../functions/errors.ts';
import { type Env, requestContext } from '../../functions/request.ts';
import { isLoopback, startServer } from '../../functions/server.ts';
import { tableConfigKey } from '../../shared/table/paths.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { harnessRuntime } from '../support/harness-api.ts';
import { httpClient } from '../support/http-client.ts';
import { eventRows, eventsTable } from '../support/rows.ts';

/** A logger whose lines land in `lines`. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('local HTTP server', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serve(overrides: Parameters<typeof createHarness>[0] = {}) {
    const h: Harness = await createHarness({ port: 0, ...overrides });
    cleanups.push(() => h.close());
    const api = openApi(harnessRuntime(h));
    cleanups.push(() => api.close());
    const server = await startServer(api.app, h.config, h.sluice.log);
    cleanups.push(() => server.close());
    return { h, server, call: httpClient(server.url) };
  }

  it('knows which hosts are loopback', () => {
    for (const host of ['127.0.0.1', '127.10.0.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
      expect([host, isLoopback(host)]).toEqual([host, true]);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1']) {
      expect([host, isLoopback(host)]).toEqual([host, false]);
    }
  });

  it('refuses to listen beyond loopback with auth off, and warns when auth is off on loopback', async () => {
    const h = await createHarness({ port: 0 });
    cleanups.push(() => h.close());
    const api = openApi(harnessRuntime(h));
    cleanups.push(() => api.close());
    const { log, lines } = capturingLogger();
    expect(() => startServer(api.app, { ...h.config, host: '0.0.0.0' }, log)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    const server = await startServer(api.app, h.config, log);
    cleanups.push(() => server.close());
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringContaining('auth is off') }),
    );

    await expect(startServer(api.app, { ...h.config, port: server.port }, log)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });

  it('answers 504 TIMEOUT past the request deadline, without waiting for the slow store read', async () => {
    const { h, call } = await serve({ http: { requestTimeoutMs: 150, idempotencyTtlSeconds: 60 } });
    await h.createTable(eventsTable('slow'));
    const slow = h.store.inject({ op: 'get', key: tableConfigKey('slow'), latencyMs: 5_000 });
    const started = Date.now();
    const reply = await call('GET', '/v1/tables/slow/rows?key=1');
    expect(reply).toMatchObject({
      status: 504,
      json: { error: { code: 'TIMEOUT', details: { timeoutMs: 150 } } },
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(slow.hits).toBe(1);
  });

  it('answers 429 BACKPRESSURE with Retry-After while a shard is behind (I18)', async () => {
    const { h, call } = await serve({ limits: { maxUnsealedBytes: 1 } });
    await h.createTable(eventsTable('behind'));
    const write = { json: { rows: eventRows(1, 5) } };
    expect((await call('POST', '/v1/tables/behind/rows', write)).status).toBe(200);
    const refused = await call('POST', '/v1/tables/behind/rows', write);
    expect(refused).toMatchObject({ status: 429, json: { error: { code: 'BACKPRESSURE' } } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('shows an unexpected error as INTERNAL with the request id only, and logs the rest', async () => {
    const { log, lines } = capturingLogger();
    const app = new Hono<Env>();
    app.use(requestContext(log));
    app.get('/boom', () => {
      throw new Error('connect ECONNREFUSED /var/run/secret.sock');
    });
    app.onError(errorResponse);
    const reply = await app.request('/boom', { headers: { 'x-request-id': 'req-7' } });
    expect(reply.status).toBe(500);
    expect(reply.headers.get('x-request-id')).toBe('req-7');
    const body = await reply.text();
    expect(JSON.parse(body)).toEqual({
      error: { code: 'INTERNAL', message: 'internal error', details: { requestId: 'req-7' } },
    });
    expect(body).not.toContain('secret');
    const logged = lines.find((line) => line.msg === 'request failed');
    expect(logged).toMatchObject({
      level: 50,
      reqId: 'req-7',
      err: { message: expect.stringContaining('secret') },
    });
  });
});

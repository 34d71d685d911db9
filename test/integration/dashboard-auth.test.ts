/**
 * Who gets into the dashboard, over real HTTP against `npm start`'s entry as an API-only
 * process: an admin token once in `?token=` buys a session cookie and a redirect that drops
 * the token; a bearer header works as on the API; nothing else does; nothing but GET and
 * HEAD passes; neither the token nor the session id is ever logged. The Lambda app has no
 * dashboard at all.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi } from '../../functions/app.ts';
import { createHarness } from '../support/harness.ts';
import { harnessRuntime } from '../support/harness-api.ts';
import type { Call, Reply, TestTokens } from '../support/http-client.ts';
import type { RedisNamespace } from '../support/redis.ts';
import { type ServedProcess, type ServerProcess, serveProcess } from '../support/server-process.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function sessionCookie(reply: Reply): { value: string; attributes: string[] } {
  const header = [reply.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('sluice_dashboard='));
  expect(header, 'a sluice_dashboard cookie').toBeDefined();
  const [pair, ...attributes] = header!.split(';').map((part) => part.trim());
  return { value: pair!.slice('sluice_dashboard='.length), attributes };
}

describe('dashboard access (API process)', () => {
  let served: ServedProcess;
  let namespace: RedisNamespace;
  let server: ServerProcess;
  let tokens: TestTokens;
  let call: Call;

  beforeAll(async () => {
    served = await serveProcess('dashboard-auth', { role: 'api' });
    ({ namespace, server, tokens, call } = served);
  });

  afterAll(async () => {
    expect(await served?.stop()).toBe(0);
  });

  it('exchanges an admin token in ?token= for an HttpOnly, SameSite=Strict session cookie and drops it from the URL', async () => {
    const exchanged = await call('GET', `/admin/queues/queue/dead-letter?token=${tokens.admin}&x=1`);
    expect(exchanged.status).toBe(303);
    expect(exchanged.headers.location).toBe('/admin/queues/queue/dead-letter?x=1');
    expect(exchanged.headers['cache-control']).toBe('no-store');
    expect(exchanged.headers['referrer-policy']).toBe('no-referrer');
    const cookie = sessionCookie(exchanged);
    expect(cookie.value).not.toContain(tokens.admin);
    expect(cookie.attributes).toEqual(
      expect.arrayContaining(['Path=/admin/queues', 'HttpOnly', 'SameSite=Strict', 'Max-Age=28800']),
    );
    expect(cookie.attributes).not.toContain('Secure');

    const page = await call('GET', '/admin/queues', {
      headers: { cookie: `sluice_dashboard=${cookie.value}` },
    });
    expect(page.status).toBe(200);
    expect(page.bytes.toString()).toContain('<base href="/admin/queues/" />');
    const queues = await call('GET', '/admin/queues/api/queues', {
      headers: { cookie: `sluice_dashboard=${cookie.value}` },
    });
    expect(queues.json.queues.map((q: { name: string }) => q.name).sort()).toEqual([
      'dead-letter',
      'flush',
      'merge',
      'sampler',
      'seal',
    ]);
  });

  it('marks the cookie Secure behind an HTTPS proxy', async () => {
    const exchanged = await call('GET', `/admin/queues?token=${tokens.admin}`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(sessionCookie(exchanged).attributes).toContain('Secure');
  });

  it('lets an admin bearer header in, as on the API', async () => {
    expect((await call('GET', '/admin/queues', { token: tokens.admin })).status).toBe(200);
    expect((await call('GET', '/admin/queues', { token: tokens.all })).status).toBe(200);
  });

  it('refuses no credentials, an unknown token or session (401) and a token without admin (403), setting no cookie', async () => {
    const none = await call('GET', '/admin/queues');
    expect(none).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
    expect(none.json.error.message).toContain('/admin/queues?token=');
    for (const reply of [
      await call('GET', `/admin/queues?token=${tokens.admin}x`),
      await call('GET', '/admin/queues', { headers: { cookie: 'sluice_dashboard=forged' } }),
      await call('GET', '/admin/queues', { token: `${tokens.admin}x` }),
    ]) {
      expect(reply).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
      expect(reply.headers['set-cookie']).toBeUndefined();
    }
    for (const reply of [
      await call('GET', `/admin/queues?token=${tokens.read}`),
      await call('GET', '/admin/queues/api/queues', { token: tokens.write }),
    ]) {
      expect(reply).toMatchObject({ status: 403, json: { error: { code: 'FORBIDDEN' } } });
      expect(reply.headers['set-cookie']).toBeUndefined();
    }
  });

  it('is read-only: anything but GET or HEAD is refused before bull-board sees it', async () => {
    for (const [method, path] of [
      ['PUT', '/admin/queues/api/queues/flush/pause'],
      ['PUT', '/admin/queues/api/queues/dead-letter/retry/waiting'],
      ['POST', '/admin/queues/api/queues/seal/add'],
      ['PATCH', '/admin/queues/api/queues/flush/1/update-data'],
    ] as const) {
      const reply = await call(method, path, { token: tokens.admin, json: {} });
      expect([method, path, reply.status, reply.json.error.code]).toEqual([method, path, 403, 'FORBIDDEN']);
    }
    expect((await call('HEAD', '/admin/queues', { token: tokens.admin })).status).toBe(200);
  });

  it('keeps in Redis only the sha256 of a session id, under the {dashboard} hash tag, expiring', async () => {
    const session = sessionCookie(await call('GET', `/admin/queues?token=${tokens.admin}`)).value;
    const key = `${namespace.prefix}:{dashboard}:session:${sha256(session)}`;
    const redis = namespace.connect();
    expect(await redis.get(key)).toBe(JSON.stringify({ name: 'admin', sha256: sha256(tokens.admin) }));
    expect(await redis.ttl(key)).toBeGreaterThan(28_000);
    const stored = await redis.keys(`${namespace.prefix}:{dashboard}:*`);
    expect(stored.join()).not.toContain(session);
  });

  it('never logs a token or a session id', async () => {
    const exchanged = await call('GET', `/admin/queues?token=${tokens.admin}`, {
      headers: { 'x-request-id': 'dashboard-exchange' },
    });
    const session = sessionCookie(exchanged).value;
    await call('GET', '/admin/queues', {
      headers: { cookie: `sluice_dashboard=${session}`, 'x-request-id': 'dashboard-session' },
    });
    await server.waitForLine((line) => line.reqId === 'dashboard-exchange', 'the exchange logged');
    await server.waitForLine((line) => line.reqId === 'dashboard-session', 'the session request logged');
    const everything = JSON.stringify(server.lines);
    for (const secret of [tokens.read, tokens.write, tokens.admin, tokens.all, session]) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('the app Lambda serves (openApi)', () => {
  it('has no dashboard', async () => {
    const h = await createHarness();
    const api = openApi(harnessRuntime(h));
    try {
      expect((await api.app.request('/admin/queues')).status).toBe(404);
    } finally {
      await api.close();
      await h.close();
    }
  });
});

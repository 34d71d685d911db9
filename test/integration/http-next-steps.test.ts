/**
 * Refusals that tell the client what to do next, over real HTTP on the in-process harness
 * (the poisoned shard needs the fault-injecting store): the body to send, the route that
 * undrains a table, and a SHARD_POISONED answer that points to the shard route instead of
 * carrying the server's failure text.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generationPrefix } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { prefixGlob } from '../support/key-globs.ts';
import { eventRows, eventsTable } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('errors that say the next step', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeEach(async () => {
    served = await serveTestApi({
      flush: { maxRetries: 1, retryBaseMs: 5, retryMaxMs: 10 },
    });
    ({ h, tokens, call } = served);
    await h.createTable(eventsTable('events', { shards: 1 }));
  });

  afterEach(async () => {
    await served.close();
  });

  it('DELETE …/rows without a body says to send {"keys":[…]}', async () => {
    const reply = await call('DELETE', '/v1/tables/events/rows', {
      token: tokens.write,
      contentType: 'application/json',
    });
    expect(reply.status).toBe(400);
    expect(reply.json.error.message).toContain('send {"keys":[…]}');
  });

  it('a top-level JSON array of rows says to send {"rows":[…]}', async () => {
    const reply = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: eventRows(1, 2),
    });
    expect(reply.status).toBe(400);
    expect(reply.json.error.message).toMatch(/^the body is a JSON array: send \{"rows":\[/);
  });

  it('a merge of a drained table names the route and body that undrain it', async () => {
    await call('POST', '/v1/tables/events/drain', { token: tokens.admin, json: { drain: true } });
    const reply = await call('POST', '/v1/tables/events/merge', { token: tokens.admin });
    expect(reply.status).toBe(409);
    expect(reply.json.error.message).toContain('POST /v1/tables/events/drain {"drain":false}');
  });

  it('SHARD_POISONED to writers and readers carries no server failure text; the shard route shows the cause', async () => {
    h.store.inject({
      op: 'put',
      key: `${prefixGlob(generationPrefix, 'events', '*')}*`,
      fault: 'fail',
      permanent: true,
    });
    h.startWorkers();
    await call('POST', '/v1/tables/events/rows', { token: tokens.write, json: { rows: eventRows(1, 3) } });
    const stats = await waitFor(
      async () => {
        const reply = await call('GET', '/v1/tables/events/shards/0', { token: tokens.admin });
        return reply.json.poison ? reply.json : undefined;
      },
      { message: 'the shard poisoned', timeoutMs: 20_000 },
    );
    expect(stats.poison.cause).toContain(generationPrefix('events', 0));

    const write = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { rows: eventRows(4, 4) },
    });
    const read = await call('GET', '/v1/tables/events/rows?key=1', { token: tokens.read });
    for (const reply of [write, read]) {
      expect(reply.status).toBe(503);
      expect(reply.json.error).toMatchObject({
        code: 'SHARD_POISONED',
        details: { table: 'events', shard: 0, poison: { code: stats.poison.code, at: stats.poison.at } },
      });
      const text = reply.bytes.toString('utf8');
      expect(text).not.toContain(stats.poison.cause);
      expect(text).not.toContain('shards/0/gen/');
      expect(text).not.toContain(h.dir.path);
      expect(reply.json.error.details.poison).not.toHaveProperty('cause');
      expect(reply.json.error.message).toContain('GET /v1/tables/events/shards/0');
    }
  });
});

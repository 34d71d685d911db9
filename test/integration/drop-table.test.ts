/**
 * DELETE /v1/tables/{t} (admin): reads, writes and describe answer 404 at once, also in a
 * second process that had the definition cached; the name stays taken and the data stays
 * until the GC grace has passed, then the sampler's sweep purges every object and Redis key
 * of the table but the marker, which keeps the name from being used again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { samplerTick } from '../../shared/scheduler/sampler.ts';
import { samplerDeps } from '../../shared/services/sampler.ts';
import { tableDroppedKey, tablePrefix } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { deleteKeys, keysMatching } from '../support/redis.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const GRACE_SECONDS = 60;

describe('dropping a table', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeEach(async () => {
    served = await serveTestApi({ scheduler: { gcGraceSeconds: GRACE_SECONDS } });
    ({ h, tokens, call } = served);
    await call('POST', '/v1/tables', { token: tokens.write, json: eventsTable('events', { shards: 2 }) });
    await call('POST', '/v1/tables/events/rows', { token: tokens.write, json: { rows: eventRows(1, 20) } });
    await h.sluice.shards.seal('events', 0);
    await h.sluice.shards.flush('events', 0);
  });

  afterEach(async () => {
    await served.close();
  });

  const tableKeys = async () => {
    const keys: string[] = [];
    for await (const page of h.store.list(tablePrefix('events'))) keys.push(...page.map((o) => o.key));
    return keys;
  };

  it('answers 404 at once to reads, writes, describe and list, here and in a process that had it cached', async () => {
    const other = h.otherProcess().sluice;
    expect((await other.reads.lookup('events', 1))?.numRows).toBe(1);

    expect((await call('DELETE', '/v1/tables/events', { token: tokens.write })).status).toBe(403);
    const dropped = await call('DELETE', '/v1/tables/events', { token: tokens.admin });
    expect(dropped).toMatchObject({ status: 200, json: { name: 'events', droppedAt: expect.any(String) } });
    expect(Date.parse(dropped.json.purgeAfter) - Date.parse(dropped.json.droppedAt)).toBe(
      GRACE_SECONDS * 1000,
    );

    const replies = await Promise.all([
      call('GET', '/v1/tables/events', { token: tokens.read }),
      call('GET', '/v1/tables/events/rows?key=1', { token: tokens.read }),
      call('GET', '/v1/tables/events/rows', { token: tokens.read }),
      call('POST', '/v1/tables/events/rows', { token: tokens.write, json: { rows: eventRows(21, 21) } }),
      call('DELETE', '/v1/tables/events/rows', { token: tokens.write, json: { keys: [1] } }),
      call('DELETE', '/v1/tables/events', { token: tokens.admin }),
    ]);
    expect(replies.map((r) => [r.status, r.json.error.code])).toEqual(
      Array(6).fill([404, 'TABLE_NOT_FOUND']),
    );
    expect((await call('GET', '/v1/tables', { token: tokens.read })).json.items).toEqual([]);
    await expect(other.reads.lookup('events', 1)).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    await expect(writeRows(other, 'events', eventRows(30, 30))).rejects.toMatchObject({
      code: 'TABLE_NOT_FOUND',
    });
  });

  it('a write learns of the drop from its allocation, also once Redis lost every copy of the flag', async () => {
    const other = h.otherProcess().sluice;
    const def = await other.tables.describe('events');
    expect((await call('DELETE', '/v1/tables/events', { token: tokens.admin })).status).toBe(200);
    const flags = [0, 1].map((shard) => h.shardKeys('events', shard).dropped);
    expect(await h.redis.mget(...flags)).toEqual(['1', '1']);

    await h.redis.del(...flags);
    await expect(
      other.writes.append('events', jsonRowsToRecordBatch(def.schema, eventRows(42, 60))),
    ).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    expect(await h.redis.mget(...flags)).toEqual(['1', '1']);
  });

  it('a drop whose flags never reached Redis (or a Redis restored from before it) is told again by the next sweep', async () => {
    const other = h.otherProcess().sluice;
    const def = await other.tables.describe('events');
    expect((await call('DELETE', '/v1/tables/events', { token: tokens.admin })).status).toBe(200);
    const flags = [0, 1].map((shard) => h.shardKeys('events', shard).dropped);
    await h.redis.mset(flags[0]!, '0', flags[1]!, '0');
    const rows = () => jsonRowsToRecordBatch(def.schema, eventRows(42, 60));
    // The hole the sweep closes: with the copies saying "not dropped", a cached definition writes.
    await expect(other.writes.append('events', rows())).resolves.toMatchObject({ acked: 19 });

    await h.parts.samplerIndex.recordSweep(0);
    await samplerTick(samplerDeps(h.parts), Date.now());
    expect(await h.redis.mget(...flags)).toEqual(['1', '1']);
    await expect(other.writes.append('events', rows())).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
  });

  it('a write refused for a drop lets go of the definition, so later writes touch no Redis key of the table', async () => {
    const other = h.otherProcess().sluice;
    const def = await other.tables.describe('events');
    expect((await call('DELETE', '/v1/tables/events', { token: tokens.admin })).status).toBe(200);
    const rows = () => jsonRowsToRecordBatch(def.schema, eventRows(42, 60));
    await expect(other.writes.append('events', rows())).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });

    // As after the purge: no key of the table is left in Redis.
    await deleteKeys(h.redis, `${h.config.redisPrefix}:{events/*`);
    await expect(other.writes.append('events', rows())).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    expect(await keysMatching(h.redis, `${h.config.redisPrefix}:{events/*`)).toEqual([]);
  });

  it('keeps the data until the grace has passed, then purges it; the name is never used again', async () => {
    const before = await tableKeys();
    expect(before.some((k) => k.includes('/gen/'))).toBe(true);
    await call('DELETE', '/v1/tables/events', { token: tokens.admin });

    const recreate = await call('POST', '/v1/tables', { token: tokens.write, json: eventsTable('events') });
    expect(recreate).toMatchObject({
      status: 409,
      json: { error: { code: 'TABLE_EXISTS', details: { dropped: true } } },
    });

    const deps = samplerDeps(h.parts);
    await h.parts.samplerIndex.recordSweep(0);
    await samplerTick(deps, Date.now() + (GRACE_SECONDS - 5) * 1000);
    expect(await tableKeys()).toEqual(expect.arrayContaining(before));

    await samplerTick(deps, Date.now() + (GRACE_SECONDS + 5) * 1000 + 5 * 60_000);
    expect(await tableKeys()).toEqual([tableDroppedKey('events')]);
    expect(await h.redis.keys(`${h.config.redisPrefix}:{events/*`)).toEqual([]);

    const again = await call('POST', '/v1/tables', { token: tokens.write, json: eventsTable('events') });
    expect(again).toMatchObject({
      status: 409,
      json: { error: { code: 'TABLE_EXISTS', details: { dropped: true } } },
    });
    expect(again.json.error.message).toContain('choose another name');
  });
});

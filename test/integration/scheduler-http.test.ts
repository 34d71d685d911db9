/**
 * The merge, drain and scheduler routes (docs/design.md, "Routes") over real HTTP: the app in this
 * process on the harness (real Redis, the file store, real merge workers), with auth on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SluiceError } from '../../shared/errors.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const outage = new SluiceError('STORE_UNAVAILABLE', 'the store is down');

describe('merge, drain and scheduler routes (I15, I17)', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeEach(async () => {
    served = await serveTestApi({ port: 0 });
    ({ h, tokens, call } = served);
  });

  afterEach(async () => {
    await served.close();
  });

  async function flushedGeneration(table: string, rows: ReturnType<typeof eventRows>) {
    await writeRows(h.sluice, table, rows);
    await h.sluice.shards.seal(table, 0);
    await h.sluice.shards.flush(table, 0);
  }

  describe('POST /v1/tables/{t}/merge', () => {
    it('answers 202 with the job id and the merge runs, cooldown or not', async () => {
      await h.createTable(eventsTable('orders'));
      await flushedGeneration('orders', eventRows(1, 10));
      for (let n = 0; n < 3; n++) await h.parts.ledger.recordFailure('merge', 'orders', outage);
      expect(await h.parts.ledger.isCoolingDown('merge', 'orders')).toBe(true);
      h.startWorkers(['merge']);

      const reply = await call('POST', '/v1/tables/orders/merge', { token: tokens.admin });
      expect(reply).toMatchObject({ status: 202, json: { jobId: expect.any(String) } });
      await waitFor(async () => (await h.scheduler.merge.getJobState(reply.json.jobId)) === 'completed', {
        message: 'the manual merge completed',
      });
      expect((await h.sluice.shards.stats('orders', 0)).pendingGenerations).toBe(0);
      const cooldowns = await call('GET', '/v1/scheduler/cooldowns', { token: tokens.admin });
      expect(cooldowns).toMatchObject({ status: 200, json: { items: [], next: null } });
    });

    it('refuses a drained table with 409 TABLE_DRAINED, an unknown one with 404, and non-admins', async () => {
      await h.createTable(eventsTable('quiet'));
      await call('POST', '/v1/tables/quiet/drain', { token: tokens.admin, json: { drain: true } });
      const drained = await call('POST', '/v1/tables/quiet/merge', { token: tokens.admin });
      expect(drained).toMatchObject({ status: 409, json: { error: { code: 'TABLE_DRAINED' } } });
      expect(await h.scheduler.merge.count()).toBe(0);
      const unknown = await call('POST', '/v1/tables/nope/merge', { token: tokens.admin });
      expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'TABLE_NOT_FOUND' } } });
      const bad = await call('POST', '/v1/tables/..%2Fx/merge', { token: tokens.admin });
      expect(bad.status).toBe(400);
      expect((await call('POST', '/v1/tables/quiet/merge', { token: tokens.write })).status).toBe(403);
      expect((await call('POST', '/v1/tables/quiet/merge')).status).toBe(401);
    });
  });

  describe('POST /v1/tables/{t}/drain', () => {
    it('sets and clears the flag, shown in describe; writes go on while drained', async () => {
      await h.createTable(eventsTable('events'));
      const describe = async () => (await call('GET', '/v1/tables/events', { token: tokens.read })).json;
      expect((await describe()).drain).toBe(false);

      const on = await call('POST', '/v1/tables/events/drain', {
        token: tokens.admin,
        json: { drain: true },
      });
      expect(on).toMatchObject({ status: 200, json: { table: 'events', drain: true } });
      expect((await describe()).drain).toBe(true);
      const listed = await call('GET', '/v1/tables', { token: tokens.read });
      expect(listed.json.items).toEqual([expect.objectContaining({ name: 'events', drain: true })]);
      const write = await call('POST', '/v1/tables/events/rows', {
        token: tokens.write,
        json: { rows: eventRows(1, 3) },
      });
      expect(write.status).toBe(200);

      const off = await call('POST', '/v1/tables/events/drain', {
        token: tokens.admin,
        json: { drain: false },
      });
      expect(off).toMatchObject({ status: 200, json: { table: 'events', drain: false } });
      expect((await describe()).drain).toBe(false);
    });

    it('refuses bad bodies with 400, unknown tables with 404, non-admins with 403', async () => {
      await h.createTable(eventsTable('events'));
      for (const json of [{}, { drain: 'yes' }, { drain: 1 }, { drain: true, extra: 1 }, [true]]) {
        const reply = await call('POST', '/v1/tables/events/drain', { token: tokens.admin, json });
        expect(reply, JSON.stringify(json)).toMatchObject({
          status: 400,
          json: { error: { code: 'INVALID_REQUEST' } },
        });
      }
      const text = await call('POST', '/v1/tables/events/drain', { token: tokens.admin, body: 'drain' });
      expect(text.status).toBe(415);
      const unknown = await call('POST', '/v1/tables/nope/drain', {
        token: tokens.admin,
        json: { drain: true },
      });
      expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'TABLE_NOT_FOUND' } } });
      const reader = await call('POST', '/v1/tables/events/drain', {
        token: tokens.read,
        json: { drain: true },
      });
      expect(reader.status).toBe(403);
      expect(await h.parts.drains.isDrained('events')).toBe(false);
    });
  });

  describe('GET /v1/scheduler/cooldowns and /v1/scheduler/merge-failures (I17)', () => {
    const targets = Array.from({ length: 257 }, (_, i) => `t${String(i).padStart(3, '0')}`);

    it('lists a cooldown with kind, target, failures, until and the last error', async () => {
      for (let n = 0; n < 3; n++) await h.parts.ledger.recordFailure('merge', 'slow', outage);
      const reply = await call('GET', '/v1/scheduler/cooldowns', { token: tokens.admin });
      expect(reply).toMatchObject({
        status: 200,
        json: {
          items: [
            {
              kind: 'merge',
              target: 'slow',
              failures: 3,
              until: expect.any(String),
              lastError: { code: 'STORE_UNAVAILABLE', message: 'the store is down' },
            },
          ],
          next: null,
        },
      });
      expect((await call('GET', '/v1/scheduler/cooldowns', { token: tokens.read })).status).toBe(403);
    });

    it('257 merge failures paginate to 2 pages with no loss or repeat; reading twice changes nothing', async () => {
      for (const [i, target] of targets.entries()) {
        for (let n = 0; n <= i % 4; n++) await h.parts.ledger.recordFailure('merge', target, outage);
      }
      const readAllPages = async () => {
        const first = await call('GET', '/v1/scheduler/merge-failures', { token: tokens.admin });
        expect(first.status).toBe(200);
        expect(first.json.items).toHaveLength(256);
        expect(first.json.next).toEqual(expect.any(String));
        const second = await call('GET', `/v1/scheduler/merge-failures?after=${first.json.next}`, {
          token: tokens.admin,
        });
        expect(second).toMatchObject({ status: 200, json: { next: null } });
        expect(second.json.items).toHaveLength(1);
        return [...first.json.items, ...second.json.items];
      };
      const once = await readAllPages();
      expect(once.map((e: { target: string }) => e.target)).toEqual(targets);
      expect(once[7]).toMatchObject({
        kind: 'merge',
        target: 't007',
        failures: 4,
        cooldownUntil: expect.any(String),
      });
      const cooling = await call('GET', '/v1/scheduler/cooldowns', { token: tokens.admin });
      const twice = await readAllPages();
      expect(twice).toEqual(once);
      expect((await call('GET', '/v1/scheduler/cooldowns', { token: tokens.admin })).json).toEqual(
        cooling.json,
      );

      const small = await call('GET', '/v1/scheduler/merge-failures?limit=100', { token: tokens.admin });
      expect(small.json.items).toHaveLength(100);
    });

    it('a malformed cursor or limit is 400', async () => {
      await h.parts.ledger.recordFailure('merge', 'x', outage);
      const cooldownCursor = Buffer.from(JSON.stringify({ of: 'cooldowns', after: 'merge/x' })).toString(
        'base64url',
      );
      for (const after of ['garbage!', 'AAAA', cooldownCursor]) {
        const reply = await call('GET', `/v1/scheduler/merge-failures?after=${encodeURIComponent(after)}`, {
          token: tokens.admin,
        });
        expect(reply, after).toMatchObject({ status: 400, json: { error: { code: 'INVALID_CURSOR' } } });
      }
      const cooldowns = await call('GET', '/v1/scheduler/cooldowns?after=AAAA', { token: tokens.admin });
      expect(cooldowns).toMatchObject({ status: 400, json: { error: { code: 'INVALID_CURSOR' } } });
      for (const limit of ['0', '257', 'x']) {
        const reply = await call('GET', `/v1/scheduler/merge-failures?limit=${limit}`, {
          token: tokens.admin,
        });
        expect(reply.status, limit).toBe(400);
      }
    });
  });
});

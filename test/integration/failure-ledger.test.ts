import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SluiceError } from '../../shared/errors.ts';
import { cooldowns } from '../../shared/metrics.ts';
import type { RedisClient } from '../../shared/redis/connection.ts';
import { FailureLedger } from '../../shared/scheduler/failure-ledger.ts';
import type { LedgerSettings } from '../../shared/scheduler/ledger-entry.ts';
import { counterSince } from '../support/counter-since.ts';
import { type CapturedLog, captureLog } from '../support/log-capture.ts';
import { createRedisNamespace, keysMatching, type RedisNamespace } from '../support/redis.ts';

const DEFAULTS: LedgerSettings = {
  cooldownAfterFailures: 3,
  cooldownBaseSeconds: 600,
  cooldownMaxSeconds: 21_600,
  attentionAfterFailures: 15,
};
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const outage = new SluiceError('STORE_UNAVAILABLE', 'the store is down');
const seconds = (s: number) => s * 1000;

describe('failure ledger (I15, I17)', () => {
  let ns: RedisNamespace;
  let redis: RedisClient;
  let captured: CapturedLog;
  let entered: Record<'merge' | 'compact', () => Promise<number>>;

  beforeEach(async () => {
    ns = createRedisNamespace();
    redis = ns.connect();
    captured = captureLog();
    entered = {
      merge: await counterSince(cooldowns, { kind: 'merge' }),
      compact: await counterSince(cooldowns, { kind: 'compact' }),
    };
  });
  afterEach(() => ns.cleanup());

  function ledger(settings: Partial<LedgerSettings> = {}): FailureLedger {
    return new FailureLedger({
      redis,
      prefix: ns.prefix,
      settings: { ...DEFAULTS, ...settings },
      log: captured.log,
    });
  }

  /** Every key under the namespace with its value: what a read-only path must leave as it found it. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const keys = (await keysMatching(redis, `${ns.prefix}*`)).sort();
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const type = await redis.type(key);
      out[key] = type === 'string' ? await redis.get(key) : await redis.zrange(key, 0, -1, 'WITHSCORES');
      out[`${key}#ttl`] = await redis.pttl(key);
    }
    return out;
  }

  it('classes failures: data and configuration, deadline (a budget abort only), retryable', async () => {
    const l = ledger();
    const classOf = async (target: string, error: unknown) =>
      (await l.recordFailure('merge', target, error)).class;
    expect(await classOf('a', new SluiceError('DATA_MISSING', 'gone'))).toBe('data-or-configuration');
    expect(await classOf('b', new SluiceError('DATA_CORRUPT', 'bad'))).toBe('data-or-configuration');
    expect(await classOf('c', new SluiceError('INVALID_SETTINGS', 'no'))).toBe('data-or-configuration');
    expect(await classOf('d', new SluiceError('TIMEOUT', 'slow', { budget: 'no-progress' }))).toBe(
      'deadline',
    );
    expect(await classOf('e', new SluiceError('ABORTED', 'cut', { budget: 'ceiling' }))).toBe('deadline');
    expect(await classOf('f', new SluiceError('TIMEOUT', 'a store call timed out'))).toBe('retryable');
    expect(await classOf('g', outage)).toBe('retryable');
    expect(await classOf('h', new Error('boom'))).toBe('retryable');
    expect((await l.get('merge', 'h'))?.lastError).toEqual({ code: 'INTERNAL', message: 'boom' });
  });

  it('counts consecutive failures per (kind, target) and a success clears them', async () => {
    const l = ledger();
    await l.recordFailure('merge', 't', outage, T0);
    const second = await l.recordFailure('merge', 't', new SluiceError('STORE_CONFLICT', 'again'), T0 + 5000);
    expect(second).toMatchObject({
      kind: 'merge',
      target: 't',
      failures: 2,
      class: 'retryable',
      lastError: { code: 'STORE_CONFLICT', message: 'again' },
      firstFailureAt: new Date(T0).toISOString(),
      lastFailureAt: new Date(T0 + 5000).toISOString(),
      cooldownUntil: null,
      needsAttention: false,
    });
    await l.recordFailure('compact', 't', outage, T0);
    expect((await l.get('compact', 't'))?.failures).toBe(1);

    expect((await l.recordSuccess('merge', 't'))?.failures).toBe(2);
    expect(await l.get('merge', 't')).toBeNull();
    expect((await l.listFailures('merge')).items).toEqual([]);
    expect((await l.get('compact', 't'))?.failures).toBe(1);
    expect((await l.recordFailure('merge', 't', outage, T0 + 9000)).failures).toBe(1);
  });

  it('the entry lives apart from any job: a new ledger on a new connection sees it', async () => {
    await ledger().recordFailure('merge', 't', outage, T0);
    const other = new FailureLedger({
      redis: ns.connect(),
      prefix: ns.prefix,
      settings: DEFAULTS,
      log: captured.log,
    });
    expect((await other.get('merge', 't'))?.failures).toBe(1);
  });

  it(`flags needsAttention at ${DEFAULTS.attentionAfterFailures} failures, and at once for data-or-configuration`, async () => {
    const l = ledger();
    for (let n = 1; n < 15; n++)
      expect((await l.recordFailure('merge', 'slow', outage, T0)).needsAttention).toBe(false);
    expect((await l.recordFailure('merge', 'slow', outage, T0)).needsAttention).toBe(true);

    const missing = new SluiceError('DATA_MISSING', 'L0 file of generation 3 is missing');
    expect((await l.recordFailure('merge', 'broken', missing, T0)).needsAttention).toBe(true);
    // Sticky for the streak: a later transient failure does not hide it from the operator.
    expect((await l.recordFailure('merge', 'broken', outage, T0)).needsAttention).toBe(true);
    await l.recordSuccess('merge', 'broken');
    expect((await l.recordFailure('merge', 'broken', outage, T0)).needsAttention).toBe(false);
  });

  it('I15: cooldown after 3 failures for 600 s, doubling per failure, capped at 21600 s', async () => {
    const l = ledger();
    const until = async (now: number) => {
      const entry = await l.recordFailure('merge', 't', outage, now);
      return entry.cooldownUntil === null ? null : (Date.parse(entry.cooldownUntil) - now) / 1000;
    };
    expect(await until(T0)).toBeNull();
    expect(await until(T0)).toBeNull();
    expect(await l.isCoolingDown('merge', 't', T0)).toBe(false);
    expect([await until(T0), await until(T0), await until(T0), await until(T0), await until(T0)]).toEqual([
      600, 1200, 2400, 4800, 9600,
    ]);
    expect([await until(T0), await until(T0), await until(T0)]).toEqual([19_200, 21_600, 21_600]);
    expect(await l.isCoolingDown('merge', 't', T0 + seconds(21_599))).toBe(true);
    expect(await l.isCoolingDown('merge', 't', T0 + seconds(21_600))).toBe(false);
    expect(await l.isCoolingDown('compact', 't', T0)).toBe(false);
  });

  it('I15: cooldownAfterFailures 0 disables cooldowns', async () => {
    const l = ledger({ cooldownAfterFailures: 0 });
    for (let n = 0; n < 20; n++)
      expect((await l.recordFailure('merge', 't', outage, T0)).cooldownUntil).toBeNull();
    expect(await l.isCoolingDown('merge', 't', T0)).toBe(false);
    expect((await l.listCooldowns({}, T0)).items).toEqual([]);
    expect(captured.warnings()).toEqual([]);
    expect(await entered.merge()).toBe(0);
  });

  it('I15: entering cooldown logs warn with the last error and counts once; a success clears it', async () => {
    const l = ledger();
    await l.recordFailure('merge', 't', outage, T0);
    await l.recordFailure('merge', 't', outage, T0 + 1000);
    expect(captured.warnings()).toEqual([]);
    const last = new SluiceError('STORE_UNAVAILABLE', 'third time');
    await l.recordFailure('merge', 't', last, T0 + 2000);
    expect(captured.warnings()).toEqual([
      expect.objectContaining({
        kind: 'merge',
        target: 't',
        failures: 3,
        until: new Date(T0 + 2000 + seconds(600)).toISOString(),
        lastError: { code: 'STORE_UNAVAILABLE', message: 'third time' },
        msg: expect.stringContaining('entering cooldown'),
      }),
    ]);
    expect(await entered.merge()).toBe(1);
    // A manual run failing while the cooldown holds extends it; it does not enter it again.
    await l.recordFailure('merge', 't', outage, T0 + 3000);
    expect(captured.warnings()).toHaveLength(1);
    expect(await entered.merge()).toBe(1);
    // After the cooldown the scheduler tries again; failing re-enters it, counted again.
    await l.recordFailure('merge', 't', outage, T0 + seconds(5000));
    expect(captured.warnings()).toHaveLength(2);
    expect(await entered.merge()).toBe(2);
    expect(await entered.compact()).toBe(0);

    await l.recordSuccess('merge', 't');
    expect(await l.isCoolingDown('merge', 't', T0 + seconds(5001))).toBe(false);
    expect((await l.listCooldowns({}, T0 + seconds(5001))).items).toEqual([]);
  });

  it('lists cooldowns with kind, target, failures, until and the last error; ended ones are left out', async () => {
    const l = ledger();
    for (let n = 0; n < 3; n++) await l.recordFailure('merge', 'm', outage, T0);
    for (let n = 0; n < 4; n++)
      await l.recordFailure('compact', 'c', new SluiceError('DATA_CORRUPT', 'bad run'), T0);
    for (let n = 0; n < 2; n++) await l.recordFailure('merge', 'below', outage, T0);
    const page = await l.listCooldowns({}, T0 + 1000);
    expect(page).toEqual({
      items: [
        {
          kind: 'compact',
          target: 'c',
          failures: 4,
          until: new Date(T0 + seconds(1200)).toISOString(),
          lastError: { code: 'DATA_CORRUPT', message: 'bad run' },
          class: 'data-or-configuration',
          needsAttention: true,
        },
        {
          kind: 'merge',
          target: 'm',
          failures: 3,
          until: new Date(T0 + seconds(600)).toISOString(),
          lastError: { code: 'STORE_UNAVAILABLE', message: 'the store is down' },
          class: 'retryable',
          needsAttention: false,
        },
      ],
      next: null,
    });
    expect((await l.listCooldowns({}, T0 + seconds(601))).items.map((c) => c.target)).toEqual(['c']);
  });

  describe('merge-failures listing (I17)', () => {
    const targets = Array.from({ length: 257 }, (_, i) => `table-${String(i).padStart(3, '0')}`);

    async function record(l: FailureLedger) {
      for (const [i, target] of targets.entries()) {
        for (let n = 0; n <= i % 4; n++) await l.recordFailure('merge', target, outage, T0 + i);
      }
    }

    it('257 records paginate to 2 pages (256 + 1) with no loss or repeat', async () => {
      const l = ledger();
      await record(l);
      await l.recordFailure('compact', 'not-a-merge', outage, T0);
      const first = await l.listFailures('merge');
      expect(first.items).toHaveLength(256);
      expect(first.next).toEqual(expect.any(String));
      const second = await l.listFailures('merge', { after: first.next });
      expect(second).toEqual({ items: [expect.objectContaining({ target: 'table-256' })], next: null });
      expect([...first.items, ...second.items].map((e) => e.target)).toEqual(targets);
      expect(first.items[5]).toMatchObject({ kind: 'merge', target: 'table-005', failures: 2 });
    });

    it('a page is stable under concurrent writes: an entry cleared or added meanwhile moves nothing else', async () => {
      const l = ledger();
      for (const target of ['a', 'c', 'e', 'g']) await l.recordFailure('merge', target, outage, T0);
      const first = await l.listFailures('merge', { limit: 2 });
      expect(first.items.map((e) => e.target)).toEqual(['a', 'c']);
      await l.recordSuccess('merge', 'a');
      await l.recordSuccess('merge', 'e');
      await l.recordFailure('merge', 'b', outage, T0);
      await l.recordFailure('merge', 'f', outage, T0);
      const rest = await l.listFailures('merge', { after: first.next, limit: 2 });
      expect(rest.items.map((e) => e.target)).toEqual(['f', 'g']);
      expect(rest.next).toBeNull();
    });

    it('a malformed cursor, or one of another listing, is INVALID_CURSOR', async () => {
      const l = ledger();
      for (let n = 0; n < 3; n++) await l.recordFailure('merge', 'x', outage, T0);
      await l.recordFailure('merge', 'y', outage, T0);
      const cooldownCursor = Buffer.from(JSON.stringify({ of: 'cooldowns', after: 'merge/x' })).toString(
        'base64url',
      );
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const after of [
        'not base64!',
        'x'.repeat(600),
        Buffer.from('not json').toString('base64url'),
        b64(['failures/merge', 'x']),
        b64({ of: 'failures/merge' }),
        b64({ of: 'failures/merge', after: 'x', extra: 1 }),
        b64({ of: 'failures/merge', after: '../x' }),
        b64({ of: 'failures/merge', after: 7 }),
        b64({ of: 'failures/compact', after: 'x' }),
        cooldownCursor,
      ]) {
        await expect(l.listFailures('merge', { after }), after).rejects.toMatchObject({
          code: 'INVALID_CURSOR',
        });
      }
      await expect(l.listCooldowns({ after: b64({ of: 'cooldowns', after: 'x' }) })).rejects.toMatchObject({
        code: 'INVALID_CURSOR',
      });
      await expect(l.listFailures('merge', { limit: 257 })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
    });

    it('reading twice leaves every count, cooldown and time unchanged', async () => {
      const l = ledger();
      await record(l);
      const before = await snapshot();
      const read = async () => {
        const first = await l.listFailures('merge');
        const second = await l.listFailures('merge', { after: first.next });
        const cooling = await l.listCooldowns({}, T0 + 1000);
        await l.isCoolingDown('merge', 'table-003', T0 + 1000);
        await l.get('merge', 'table-003');
        return { failures: [...first.items, ...second.items], cooling };
      };
      const once = await read();
      const twice = await read();
      expect(twice).toEqual(once);
      expect(once.cooling.items.map((c) => c.target)).toEqual(targets.filter((_, i) => i % 4 >= 2));
      expect(await snapshot()).toEqual(before);
    });
  });
});

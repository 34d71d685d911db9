/**
 * The Idempotency-Key rule (shared/idempotency.ts) on real Redis: one write per key and
 * request, the first ack for every retry, a conflict for another request, and nothing
 * held forever by a writer that failed or died.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../../shared/idempotency.ts';
import type { RedisClient } from '../../shared/redis/connection.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';

describe('idempotent writes', () => {
  let namespace: RedisNamespace;
  let redis: RedisClient;
  let store: IdempotencyStore;
  const request = { table: 'events', key: 'batch-1', fingerprint: 'f1' };

  beforeEach(() => {
    namespace = createRedisNamespace();
    redis = namespace.connect();
    store = new IdempotencyStore(redis, namespace.prefix, {
      ttlSeconds: 60,
      pendingMs: 300,
      settleWithinMs: 60_000,
    });
  });

  afterEach(() => namespace.cleanup());

  /** A write that counts its calls and answers its call number. */
  function counting(delayMs = 0) {
    const write = async () => {
      write.calls++;
      const call = write.calls;
      await sleep(delayMs);
      return { acked: 1, call };
    };
    write.calls = 0;
    return write;
  }

  it('writes once; a retry of the same request gets the first ack', async () => {
    const write = counting();
    expect(await store.run(request, write)).toEqual({ result: { acked: 1, call: 1 }, replayed: false });
    expect(await store.run(request, write)).toEqual({ result: { acked: 1, call: 1 }, replayed: true });
    expect(write.calls).toBe(1);
  });

  it('keeps the ack under the table hash tag for the TTL', async () => {
    await store.run(request, counting());
    const key = store.redisKey('events', 'batch-1');
    expect(key.startsWith(`${namespace.prefix}:{events}:`)).toBe(true);
    expect(key).not.toContain('batch-1');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('another request under the same key is IDEMPOTENCY_CONFLICT, before and after the ack', async () => {
    const write = counting(100);
    const first = store.run(request, write);
    await sleep(20);
    await expect(store.run({ ...request, fingerprint: 'f2' }, write)).rejects.toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    });
    await first;
    await expect(store.run({ ...request, fingerprint: 'f2' }, write)).rejects.toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    });
    expect(write.calls).toBe(1);
  });

  it('the same key on another table is another key', async () => {
    const write = counting();
    await store.run(request, write);
    expect((await store.run({ ...request, table: 'other' }, write)).replayed).toBe(false);
    expect(write.calls).toBe(2);
  });

  it('a duplicate arriving while the first runs waits for its ack instead of writing', async () => {
    const write = counting(150);
    const [a, b] = await Promise.all([
      store.run(request, write),
      sleep(20).then(() => store.run(request, write)),
    ]);
    expect(write.calls).toBe(1);
    expect(a).toEqual({ result: { acked: 1, call: 1 }, replayed: false });
    expect(b).toEqual({ result: { acked: 1, call: 1 }, replayed: true });
  });

  it('a duplicate stops waiting when its own deadline passes', async () => {
    const first = store.run(request, counting(250));
    const deadline = AbortSignal.timeout(60);
    await expect(store.run(request, counting(), deadline)).rejects.toThrow();
    await first;
  });

  it('a write that fails releases the key: the retry writes', async () => {
    await expect(
      store.run(request, async () => {
        throw new Error('store down');
      }),
    ).rejects.toThrow('store down');
    const write = counting();
    expect(await store.run(request, write)).toEqual({ result: { acked: 1, call: 1 }, replayed: false });
  });

  it('the claim of a writer that died expires after pendingMs: the retry writes', async () => {
    // A claim whose owner never settles it, as a process killed mid-write leaves it.
    const orphanConnection = namespace.connect();
    // Connected first, so that its claim lands before the retry on a cluster too.
    await orphanConnection.ping();
    const orphan = new IdempotencyStore(orphanConnection, namespace.prefix, {
      ttlSeconds: 60,
      pendingMs: 200,
      settleWithinMs: 60_000,
    });
    void orphan.run(request, () => new Promise(() => {}));
    await sleep(20);
    const write = counting();
    const started = Date.now();
    expect((await store.run(request, write)).replayed).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(write.calls).toBe(1);
  });
});

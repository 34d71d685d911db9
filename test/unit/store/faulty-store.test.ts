import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import type { FsStore } from '../../../shared/store/fs-store.ts';
import type { ObjectMeta } from '../../../shared/store/object-store.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);

async function collect(pages: AsyncIterable<ObjectMeta[]>): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of pages) keys.push(...page.map((meta) => meta.key));
  return keys;
}

describe('faulty store', () => {
  let dir: TempDir;
  let inner: FsStore;
  let store: FaultyStore;

  beforeEach(async () => {
    dir = await createTempDir('faulty');
    inner = dir.fsStore();
    store = new FaultyStore(inner);
  });
  afterEach(() => dir.cleanup());

  describe('without rules', () => {
    it('passes every operation through to the inner store', async () => {
      const created = await store.putIfAbsent('k/a', bytes('1'));
      const replaced = await store.putIfMatch('k/a', bytes('2'), created.etag);
      await store.put('k/b', bytes('3'));
      expect(text((await store.get('k/a'))?.body)).toBe('2');
      expect((await store.head('k/a'))?.etag).toBe(replaced.etag);
      expect(await collect(store.list('k/'))).toEqual(['k/a', 'k/b']);
      await store.delete('k/b');
      expect(await inner.head('k/b')).toBeNull();
      expect(store.url).toBe(inner.url);
    });

    it('counts calls per operation', async () => {
      await store.put('k/a', bytes('1'));
      await store.get('k/a');
      await store.get('k/missing');
      await collect(store.list('k/'));
      expect(store.calls).toEqual({
        get: 2,
        head: 0,
        put: 1,
        putIfAbsent: 0,
        putIfMatch: 0,
        list: 1,
        delete: 0,
      });
    });
  });

  describe('fail next N', () => {
    it('fails the next 2 matching calls with STORE_UNAVAILABLE before they reach the inner store, then lets calls through', async () => {
      const rule = store.inject({ op: 'put', fault: 'fail', times: 2 });
      await expect(store.put('k/a', bytes('1'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        details: { op: 'put', key: 'k/a', injected: 'fail' },
      });
      await expect(store.put('k/a', bytes('2'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await inner.head('k/a')).toBeNull();
      await store.put('k/a', bytes('3'));
      expect(text((await inner.get('k/a'))?.body)).toBe('3');
      expect(rule.hits).toBe(2);
      expect(store.calls.put).toBe(3);
    });

    it('throws the error code the rule names', async () => {
      store.inject({ op: 'putIfAbsent', fault: 'fail', code: 'STORE_CONFLICT', times: 1 });
      await expect(store.putIfAbsent('k/a', bytes('1'))).rejects.toMatchObject({
        code: 'STORE_CONFLICT',
        retryable: true,
      });
    });

    it('hands out exactly N failures to concurrent calls', async () => {
      store.inject({ op: 'putIfAbsent', fault: 'fail', times: 3 });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.putIfAbsent(`k/${i}`, bytes('x'))),
      );
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(3);
    });
  });

  describe('fail until healed', () => {
    it('fails every matching call until heal()', async () => {
      store.inject({ op: 'get', fault: 'fail' });
      for (let i = 0; i < 5; i += 1)
        await expect(store.get('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      store.heal();
      expect(await store.get('k/a')).toBeNull();
    });

    it('fails every matching call until the rule is removed', async () => {
      const rule = store.inject({ op: 'head', fault: 'fail' });
      await expect(store.head('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      rule.remove();
      expect(await store.head('k/a')).toBeNull();
      expect(rule.hits).toBe(1);
    });
  });

  describe('permanent', () => {
    it('survives heal() and ends only when removed', async () => {
      const rule = store.inject({ op: 'delete', fault: 'fail', permanent: true });
      store.heal();
      await expect(store.delete('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      rule.remove();
      await expect(store.delete('k/a')).resolves.toBeUndefined();
    });
  });

  describe('lost ack', () => {
    it('lets a put take effect, then throws STORE_UNAVAILABLE', async () => {
      store.inject({ op: 'put', fault: 'lostAck', times: 1 });
      await expect(store.put('k/a', bytes('landed'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        details: { injected: 'lostAck' },
      });
      expect(text((await inner.get('k/a'))?.body)).toBe('landed');
    });

    it('a putIfAbsent whose ack was lost conflicts with itself on retry', async () => {
      store.inject({ op: 'putIfAbsent', fault: 'lostAck', times: 1 });
      await expect(store.putIfAbsent('k/a', bytes('1'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.putIfAbsent('k/a', bytes('1'))).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
      });
    });

    it('passes on the inner store’s own failure instead of a lost ack', async () => {
      await store.putIfAbsent('k/a', bytes('1'));
      store.inject({ op: 'putIfAbsent', fault: 'lostAck', times: 1 });
      await expect(store.putIfAbsent('k/a', bytes('2'))).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
      });
    });

    it('lets a delete take effect, then throws', async () => {
      await store.put('k/a', bytes('1'));
      store.inject({ op: 'delete', fault: 'lostAck', times: 1 });
      await expect(store.delete('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await inner.head('k/a')).toBeNull();
    });
  });

  describe('latency', () => {
    it('delays matching calls by at least latencyMs, and leaves others alone', async () => {
      store.inject({ op: 'get', latencyMs: 60 });
      const slow = performance.now();
      await store.get('k/a');
      expect(performance.now() - slow).toBeGreaterThanOrEqual(55);
      const fast = performance.now();
      await store.head('k/a');
      expect(performance.now() - fast).toBeLessThan(55);
    });

    it('an aborted signal cuts the delay short with ABORTED, and the call never reaches the inner store', async () => {
      store.inject({ op: 'put', latencyMs: 10_000 });
      const controller = new AbortController();
      const started = performance.now();
      const attempt = store.put('k/a', bytes('1'), { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      await expect(attempt).rejects.toMatchObject({ code: 'ABORTED' });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(await inner.head('k/a')).toBeNull();
    });

    it('adds up with a fault: slow, then failing', async () => {
      store.inject({ op: 'put', latencyMs: 40 });
      store.inject({ op: 'put', fault: 'fail', latencyMs: 40, times: 1 });
      const started = performance.now();
      await expect(store.put('k/a', bytes('1'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    });
  });

  describe('matching', () => {
    it('matches a glob: * stays within a segment, ** crosses segments, ? is one character', async () => {
      const within = store.inject({ op: 'head', key: 'tables/*/wal/?', fault: 'fail' });
      await expect(store.head('tables/t/wal/1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await store.head('tables/t/x/wal/1')).toBeNull();
      expect(await store.head('tables/t/wal/12')).toBeNull();
      within.remove();
      store.inject({ op: 'head', key: 'tables/**/_manifest/*.json', fault: 'fail' });
      await expect(store.head('tables/t/shards/0/_manifest/1.json')).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      expect(await store.head('tables/t/shards/0/_manifest/1.arrow')).toBeNull();
    });

    it('treats glob text literally apart from its wildcards', async () => {
      store.inject({ op: 'head', key: 'a.b+(c)', fault: 'fail' });
      await expect(store.head('a.b+(c)')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await store.head('aXb+(c)')).toBeNull();
    });

    it('matches a RegExp anywhere in the key', async () => {
      store.inject({ op: 'get', key: /\/wal\//, fault: 'fail' });
      await expect(store.get('tables/t/shards/0/wal/1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await store.get('tables/t/shards/0/gen/1')).toBeNull();
    });

    it('matches only the listed operations; "*" or no op matches them all', async () => {
      store.inject({ op: ['put', 'delete'], fault: 'fail', times: 2 });
      expect(await store.get('k/a')).toBeNull();
      await expect(store.put('k/a', bytes('1'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.delete('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      store.inject({ op: '*', fault: 'fail', times: 1 });
      await expect(store.head('k/a')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      store.inject({ fault: 'fail', times: 1 });
      await expect(collect(store.list('k/'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    });

    it('fires only the first matching fault rule', async () => {
      const first = store.inject({ op: 'put', fault: 'fail', code: 'STORE_CONFLICT', times: 1 });
      const second = store.inject({ op: 'put', fault: 'fail', times: 1 });
      await expect(store.put('k/a', bytes('1'))).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
      await expect(store.put('k/a', bytes('1'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect([first.hits, second.hits]).toEqual([1, 1]);
    });
  });

  describe('list', () => {
    beforeEach(async () => {
      for (const key of ['k/a', 'k/b', 'k/c']) await inner.put(key, bytes(key));
    });

    it('a failing list throws before the first page, matched by its prefix', async () => {
      store.inject({ op: 'list', key: 'k/', fault: 'fail', times: 1 });
      await expect(collect(store.list('k/', { pageSize: 1 }))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      expect(await collect(store.list('k/'))).toEqual(['k/a', 'k/b', 'k/c']);
    });

    it('a list whose answer is lost reads from the inner store, then throws instead of the first page', async () => {
      store.inject({ op: 'list', fault: 'lostAck', times: 1 });
      await expect(collect(store.list('k/'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        details: { injected: 'lostAck' },
      });
      await expect(collect(store.list('nothing/'))).resolves.toEqual([]);
    });

    it('decides a list call’s fault when it is made, not when it is iterated', async () => {
      const doomed = store.list('k/');
      store.inject({ op: 'list', fault: 'fail' });
      expect(await collect(doomed)).toEqual(['k/a', 'k/b', 'k/c']);
      expect(store.calls.list).toBe(1);
    });
  });

  describe('rules', () => {
    it('refuses a rule that does nothing or cannot be honoured (INVALID_REQUEST)', () => {
      for (const rule of [
        {},
        { fault: 'fail' as const, times: 0 },
        { fault: 'fail' as const, times: 1, permanent: true },
        { latencyMs: -5 },
      ]) {
        expect(() => store.inject(rule)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
      }
    });
  });
});

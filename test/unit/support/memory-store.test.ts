import { describe, expect, it } from 'vitest';
import { isSluiceError } from '../../../shared/errors.ts';
import { MemoryStore } from '../../support/memory-store.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('memory store (test double of the ObjectStore contract)', () => {
  it('puts, gets whole and by range, heads and deletes', async () => {
    const store = new MemoryStore();
    const meta = await store.put('a/b', bytes('hello'));
    expect(meta).toMatchObject({ key: 'a/b', size: 5 });
    expect(Buffer.from((await store.get('a/b'))!.body).toString()).toBe('hello');
    expect(Buffer.from((await store.get('a/b', { range: { start: 1, end: 3 } }))!.body).toString()).toBe(
      'el',
    );
    expect(Buffer.from((await store.get('a/b', { range: { start: 3 } }))!.body).toString()).toBe('lo');
    expect((await store.head('a/b'))?.etag).toBe(meta.etag);
    await store.delete('a/b');
    await store.delete('a/b');
    expect(await store.get('a/b')).toBeNull();
  });

  it('lets exactly one of 20 racing putIfAbsent on one key win', async () => {
    const store = new MemoryStore();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => store.putIfAbsent('k', bytes(`${i}`))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.every((r) => r.status === 'fulfilled' || isSluiceError(r.reason, 'PRECONDITION_FAILED')),
    ).toBe(true);
  });

  it('lets exactly one of 20 racing putIfMatch with one etag win', async () => {
    const store = new MemoryStore();
    const { etag } = await store.put('k', bytes('v0'));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => store.putIfMatch('k', bytes(`${i}`), etag)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await expect(store.putIfMatch('k', bytes('x'), etag)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });

  it('lists in key order, paged, after startAfter, under a prefix only', async () => {
    const store = new MemoryStore();
    for (const key of ['p/3', 'p/1', 'q/1', 'p/2', 'p/10']) await store.put(key, bytes(key));
    const pages: string[][] = [];
    for await (const page of store.list('p/', { pageSize: 2 })) pages.push(page.map((m) => m.key));
    expect(pages).toEqual([
      ['p/1', 'p/10'],
      ['p/2', 'p/3'],
    ]);
    const after: string[] = [];
    for await (const page of store.list('p/', { startAfter: 'p/10' })) after.push(...page.map((m) => m.key));
    expect(after).toEqual(['p/2', 'p/3']);
  });

  it('copies bodies in and out, and refuses keys that are not keys', async () => {
    const store = new MemoryStore();
    const body = bytes('abc');
    await store.put('k', body);
    body[0] = 0x7a;
    const read = (await store.get('k'))!.body;
    read[1] = 0x7a;
    expect(Buffer.from((await store.get('k'))!.body).toString()).toBe('abc');
    for (const key of ['', '/abs', 'a/../b', 'a//b']) {
      await expect(store.put(key, body)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });
});

import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultyStore } from '../../shared/store/faulty-store.ts';
import type { FsStore } from '../../shared/store/fs-store.ts';
import type { ObjectMeta, ObjectStore } from '../../shared/store/object-store.ts';
import { S3Store } from '../../shared/store/s3-store.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

interface OpenedStore {
  store: ObjectStore;
  cleanup(): Promise<void>;
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array) => new TextDecoder().decode(body);

async function collect(pages: AsyncIterable<ObjectMeta[]>): Promise<ObjectMeta[][]> {
  const all: ObjectMeta[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

const listKeys = async (store: ObjectStore, prefix = '') =>
  (await collect(store.list(prefix))).flat().map((m) => m.key);

/** Keys a store must refuse, whatever it is: each would escape the root or alias another key on disk. */
const BAD_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['a ".." segment', 'tables/../escape'],
  ['a leading ".." segment', '../escape'],
  ['a "." segment', 'tables/./t'],
  ['an absolute path', '/etc/passwd'],
  ['a NUL character', 'tables/t\0x'],
  ['an empty segment', 'tables//t'],
  ['a trailing slash', 'tables/t/'],
  ['a backslash', 'tables\\t'],
  ['the empty key', ''],
  ['the reserved .tmp/ prefix', '.tmp/x'],
];

function describeObjectStoreConformance(name: string, open: () => Promise<OpenedStore>): void {
  describe(`object store conformance: ${name}`, () => {
    let store: ObjectStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    describe('get, head, put, delete', () => {
      it('answers null to get and head of a missing key', async () => {
        expect(await store.get('tables/t/missing.json')).toBeNull();
        expect(await store.head('tables/t/missing.json')).toBeNull();
      });

      it('returns the bytes put, with the metadata head reports', async () => {
        const body = randomBytes(100_000);
        const put = await store.put('tables/t/data.bin', body);
        const got = await store.get('tables/t/data.bin');
        const head = await store.head('tables/t/data.bin');
        expect(Buffer.from(got?.body ?? []).equals(body)).toBe(true);
        expect(put).toMatchObject({ key: 'tables/t/data.bin', size: 100_000 });
        expect(got?.meta).toMatchObject({ key: put.key, size: put.size, etag: put.etag });
        expect(head).toMatchObject({ key: put.key, size: put.size, etag: put.etag });
        expect(head?.lastModified).toBeInstanceOf(Date);
      });

      it('stores an empty object', async () => {
        await store.put('tables/t/empty', new Uint8Array(0));
        expect((await store.get('tables/t/empty'))?.body.byteLength).toBe(0);
        expect((await store.head('tables/t/empty'))?.size).toBe(0);
      });

      it('put replaces the object and gives it a new etag', async () => {
        const first = await store.put('tables/t/x', bytes('one'));
        const second = await store.put('tables/t/x', bytes('two'));
        expect(second.etag).not.toBe(first.etag);
        expect(text((await store.get('tables/t/x'))?.body ?? bytes(''))).toBe('two');
      });

      it('a reader racing replacing writers sees one whole version, never a mix', async () => {
        const version = (fill: string) => Buffer.alloc(256 * 1024, fill);
        await store.put('tables/t/big', version('a'));
        const writes = ['b', 'c', 'd', 'e'].map((fill) => store.put('tables/t/big', version(fill)));
        const reads = Array.from({ length: 12 }, () => store.get('tables/t/big'));
        await Promise.all(writes);
        for (const got of await Promise.all(reads)) {
          const body = Buffer.from(got?.body ?? []);
          expect(body.length).toBe(256 * 1024);
          expect(body.equals(version(String.fromCharCode(body[0] ?? 0)))).toBe(true);
        }
      });

      it('delete removes the object; deleting a missing key is not an error', async () => {
        await store.put('tables/t/x', bytes('one'));
        await store.delete('tables/t/x');
        expect(await store.head('tables/t/x')).toBeNull();
        await expect(store.delete('tables/t/x')).resolves.toBeUndefined();
        await expect(store.delete('tables/never/was')).resolves.toBeUndefined();
      });

      it('a deleted key can be created again with putIfAbsent', async () => {
        await store.putIfAbsent('tables/t/x', bytes('one'));
        await store.delete('tables/t/x');
        await store.putIfAbsent('tables/t/x', bytes('two'));
        expect(text((await store.get('tables/t/x'))?.body ?? bytes(''))).toBe('two');
      });
    });

    describe('putIfAbsent', () => {
      it('creates the object; a second putIfAbsent fails with PRECONDITION_FAILED and changes nothing', async () => {
        const created = await store.putIfAbsent('tables/t/_manifest/1.json', bytes('first'));
        await expect(store.putIfAbsent('tables/t/_manifest/1.json', bytes('second'))).rejects.toMatchObject({
          code: 'PRECONDITION_FAILED',
        });
        const got = await store.get('tables/t/_manifest/1.json');
        expect(text(got?.body ?? bytes(''))).toBe('first');
        expect(got?.meta.etag).toBe(created.etag);
      });

      it('20 racing putIfAbsent on one key: exactly one wins, the rest fail with PRECONDITION_FAILED, the content is the winner’s', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.putIfAbsent('tables/t/wal/00000000000000000001.arrow', bytes(`w${i}`)),
          ),
        );
        const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(19);
        for (const reason of losers) expect(reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
        const got = await store.get('tables/t/wal/00000000000000000001.arrow');
        expect(text(got?.body ?? bytes(''))).toBe(`w${winners[0]}`);
      });
    });

    describe('putIfMatch', () => {
      it('replaces the object when the etag is current, and returns the new etag', async () => {
        const first = await store.put('tables/t/state.json', bytes('v1'));
        const second = await store.putIfMatch('tables/t/state.json', bytes('v2'), first.etag);
        expect(second.etag).not.toBe(first.etag);
        expect((await store.head('tables/t/state.json'))?.etag).toBe(second.etag);
        expect(text((await store.get('tables/t/state.json'))?.body ?? bytes(''))).toBe('v2');
      });

      it('a stale etag fails with PRECONDITION_FAILED and changes nothing', async () => {
        const first = await store.put('tables/t/state.json', bytes('v1'));
        await store.putIfMatch('tables/t/state.json', bytes('v2'), first.etag);
        await expect(store.putIfMatch('tables/t/state.json', bytes('v3'), first.etag)).rejects.toMatchObject({
          code: 'PRECONDITION_FAILED',
        });
        expect(text((await store.get('tables/t/state.json'))?.body ?? bytes(''))).toBe('v2');
      });

      it('a missing key fails with PRECONDITION_FAILED and creates nothing', async () => {
        const other = await store.put('tables/t/other', bytes('v1'));
        await expect(store.putIfMatch('tables/t/state.json', bytes('v1'), other.etag)).rejects.toMatchObject({
          code: 'PRECONDITION_FAILED',
        });
        expect(await store.head('tables/t/state.json')).toBeNull();
      });

      it('20 racing putIfMatch with the same etag: exactly one wins, the rest fail with PRECONDITION_FAILED', async () => {
        const base = await store.put('tables/t/state.json', bytes('base'));
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.putIfMatch('tables/t/state.json', bytes(`v${i}`), base.etag),
          ),
        );
        const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ i, meta: r.value }] : []));
        const losers = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(winners).toHaveLength(1);
        for (const reason of losers) expect(reason).toMatchObject({ code: 'PRECONDITION_FAILED' });
        const got = await store.get('tables/t/state.json');
        expect(text(got?.body ?? bytes(''))).toBe(`v${winners[0]?.i}`);
        expect(got?.meta.etag).toBe(winners[0]?.meta.etag);
      });
    });

    describe('range reads', () => {
      beforeEach(async () => {
        await store.put('tables/t/r', bytes('0123456789'));
      });

      it('reads [start, end) and reports the size of the whole object', async () => {
        const got = await store.get('tables/t/r', { range: { start: 2, end: 5 } });
        expect(text(got?.body ?? bytes(''))).toBe('234');
        expect(got?.meta.size).toBe(10);
      });

      it('reads to the end when the range has no end', async () => {
        expect(text((await store.get('tables/t/r', { range: { start: 7 } }))?.body ?? bytes(''))).toBe('789');
        expect(text((await store.get('tables/t/r', { range: { start: 0 } }))?.body ?? bytes(''))).toBe(
          '0123456789',
        );
      });

      it('cuts a range that runs past the end at the end', async () => {
        expect(
          text((await store.get('tables/t/r', { range: { start: 8, end: 50 } }))?.body ?? bytes('')),
        ).toBe('89');
      });

      it('reads nothing from an empty range or one that starts at or past the end', async () => {
        for (const range of [{ start: 3, end: 3 }, { start: 10 }, { start: 25, end: 30 }]) {
          const got = await store.get('tables/t/r', { range });
          expect(got?.body.byteLength).toBe(0);
          expect(got?.meta.size).toBe(10);
        }
      });

      it('reads nothing from any range of an empty object', async () => {
        await store.put('tables/t/empty', new Uint8Array(0));
        expect((await store.get('tables/t/empty', { range: { start: 0, end: 5 } }))?.body.byteLength).toBe(0);
      });

      it('answers null to a range read of a missing key', async () => {
        expect(await store.get('tables/t/missing', { range: { start: 1, end: 2 } })).toBeNull();
      });

      it('refuses a negative start or an end before the start with INVALID_REQUEST', async () => {
        for (const range of [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }]) {
          await expect(store.get('tables/t/r', { range })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        }
      });
    });

    describe('list', () => {
      // '-' < '/' < '0': a directory's keys sort between names that extend its own.
      const layout = [
        'p/a-b',
        'p/a/b',
        'p/a/c/d',
        'p/a0',
        'p/b',
        'p/b-/x',
        'p/c',
        'p/c0/z',
        'p/d',
        'p/e',
        'q/outside',
      ];
      const underP = [...layout.filter((k) => k.startsWith('p/'))].sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );

      beforeEach(async () => {
        for (const key of [...layout].reverse()) await store.put(key, bytes(key));
      });

      it('yields pages of at most pageSize in ascending byte order, across more than two pages', async () => {
        const pages = await collect(store.list('p/', { pageSize: 3 }));
        expect(pages.length).toBeGreaterThan(2);
        for (const page of pages) expect(page.length).toBeLessThanOrEqual(3);
        expect(pages.flat().map((m) => m.key)).toEqual(underP);
        expect(underP.slice(0, 3)).toEqual(['p/a-b', 'p/a/b', 'p/a/c/d']);
      });

      it('with startAfter, yields only the keys after it, also from inside a directory', async () => {
        const after = (await collect(store.list('p/', { pageSize: 2, startAfter: 'p/a/b' }))).flat();
        expect(after.map((m) => m.key)).toEqual(underP.slice(underP.indexOf('p/a/b') + 1));
        const afterMissing = (await collect(store.list('p/', { startAfter: 'p/a/bb' }))).flat();
        expect(afterMissing.map((m) => m.key)).toEqual(underP.slice(underP.indexOf('p/a/c/d')));
      });

      it('matches a prefix that ends inside a segment', async () => {
        expect(await listKeys(store, 'p/c')).toEqual(['p/c', 'p/c0/z']);
        expect(await listKeys(store, 'p/a/')).toEqual(['p/a/b', 'p/a/c/d']);
      });

      it('walks sequence-numbered keys in order, as a WAL listing does', async () => {
        const key = (seq: number) => `tables/t/shards/0/wal/${String(seq).padStart(20, '0')}.arrow`;
        for (const seq of [25, 3, 17, 10, 1, 19, 11]) await store.putIfAbsent(key(seq), bytes(String(seq)));
        expect(await listKeys(store, 'tables/t/shards/0/wal/0000000000000000001')).toEqual(
          [10, 11, 17, 19].map(key),
        );
        const after = (
          await collect(store.list('tables/t/shards/0/wal/', { startAfter: key(10), pageSize: 2 }))
        ).flat();
        expect(after.map((m) => m.key)).toEqual([11, 17, 19, 25].map(key));
      });

      it('yields no pages for a prefix without objects', async () => {
        expect(await collect(store.list('nothing/here/'))).toEqual([]);
        expect(await collect(store.list('p/', { startAfter: 'p/e' }))).toEqual([]);
      });

      it('lists everything from the empty prefix', async () => {
        expect(await listKeys(store)).toEqual([...underP, 'q/outside']);
      });

      it('lists the metadata head reports', async () => {
        const listed = (await collect(store.list('p/d'))).flat();
        const head = await store.head('p/d');
        expect(listed).toHaveLength(1);
        expect(listed[0]).toMatchObject({ key: 'p/d', size: head?.size, etag: head?.etag });
      });
    });

    describe('failures', () => {
      it('a lost putIfAbsent ack leaves the object visible on re-read, and a retry sees it as taken', async () => {
        const faulty = new FaultyStore(store);
        faulty.inject({ op: 'putIfAbsent', fault: 'lostAck', times: 1 });
        await expect(faulty.putIfAbsent('tables/t/_manifest/2.json', bytes('mine'))).rejects.toMatchObject({
          code: 'STORE_UNAVAILABLE',
        });
        expect(text((await faulty.get('tables/t/_manifest/2.json'))?.body ?? bytes(''))).toBe('mine');
        await expect(faulty.putIfAbsent('tables/t/_manifest/2.json', bytes('mine'))).rejects.toMatchObject({
          code: 'PRECONDITION_FAILED',
        });
      });

      it('a lost putIfMatch ack leaves the new version visible on re-read', async () => {
        const faulty = new FaultyStore(store);
        const first = await faulty.put('tables/t/state.json', bytes('v1'));
        faulty.inject({ op: 'putIfMatch', fault: 'lostAck', times: 1 });
        await expect(faulty.putIfMatch('tables/t/state.json', bytes('v2'), first.etag)).rejects.toMatchObject(
          {
            code: 'STORE_UNAVAILABLE',
          },
        );
        const reread = await faulty.get('tables/t/state.json');
        expect(text(reread?.body ?? bytes(''))).toBe('v2');
        expect(reread?.meta.etag).not.toBe(first.etag);
      });

      it('an already aborted signal rejects with ABORTED and writes nothing', async () => {
        const signal = AbortSignal.abort();
        await expect(store.put('tables/t/a', bytes('x'), { signal })).rejects.toMatchObject({
          code: 'ABORTED',
        });
        await expect(store.putIfAbsent('tables/t/a', bytes('x'), { signal })).rejects.toMatchObject({
          code: 'ABORTED',
        });
        await expect(store.get('tables/t/a', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
        await expect(collect(store.list('tables/', { signal }))).rejects.toMatchObject({ code: 'ABORTED' });
        expect(await store.head('tables/t/a')).toBeNull();
      });

      it.each(BAD_KEYS)('refuses a key with %s (INVALID_REQUEST) and writes nothing', async (_, key) => {
        const writes = [
          () => store.put(key, bytes('x')),
          () => store.putIfAbsent(key, bytes('x')),
          () => store.putIfMatch(key, bytes('x'), 'etag'),
          () => store.get(key),
          () => store.head(key),
          () => store.delete(key),
        ];
        for (const attempt of writes)
          await expect(attempt()).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        expect(await listKeys(store)).toEqual([]);
      });

      it('refuses a list prefix that escapes or aliases keys (INVALID_REQUEST)', async () => {
        for (const prefix of ['../', '/abs', 'a//', 'tables/../', '.tmp/']) {
          await expect(collect(store.list(prefix))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        }
      });
    });
  });
}

describeObjectStoreConformance('file system', async () => {
  const dir = await createTempDir('fs-store');
  return { store: dir.fsStore(), cleanup: () => dir.cleanup() };
});

/** The conformance suite on an S3 store over the S3 test server, every test under a prefix of its own. */
function describeS3Conformance(title: string, name: string, express: boolean): void {
  describe(title, () => {
    let server: S3TestServer;

    beforeAll(async () => {
      server = await startS3Server({ express });
    });
    afterAll(async () => {
      await server?.stop();
    });

    describeObjectStoreConformance(name, async () => {
      const store = new S3Store({
        bucket: server.bucket,
        prefix: `run-${randomUUID()}/`,
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials: server.credentials,
        unorderedListing: express,
      });
      return { store, cleanup: async () => {} };
    });
  });
}

describeS3Conformance('S3 store on a loopback S3 server', 'S3', false);
describeS3Conformance(
  'S3 store on an S3 Express-like bucket (listings in no key order, no StartAfter)',
  'S3 express',
  true,
);

describe('file system store', () => {
  let dir: TempDir;
  let root: string;
  let store: FsStore;

  beforeEach(async () => {
    dir = await createTempDir('fs-store');
    root = dir.path;
    store = dir.fsStore();
  });
  afterEach(() => dir.cleanup());

  const entriesOf = async (dir: string) => (await readdir(dir, { recursive: true })).sort();

  it('keeps each object as a file at its key path, mirroring the object layout', async () => {
    await store.putIfAbsent('tables/t/shards/0/wal/00000000000000000001.arrow', bytes('entry'));
    const onDisk = await readFile(join(root, 'tables/t/shards/0/wal/00000000000000000001.arrow'), 'utf8');
    expect(onDisk).toBe('entry');
    expect(store.url).toBe(`file://${root}`);
  });

  it('leaves nothing on disk when it refuses a bad key', async () => {
    for (const [, key] of BAD_KEYS) {
      await store.put(key, bytes('x')).catch(() => undefined);
      await store.putIfAbsent(key, bytes('x')).catch(() => undefined);
    }
    expect(await entriesOf(root)).toEqual(['.tmp']);
    await expect(stat(join(root, '..', 'escape'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never lists its temp and lock files, even for a prefix that matches their directory', async () => {
    await writeFile(join(root, '.tmp', 'leftover.tmp'), 'partial');
    await store.put('.tmpx/real', bytes('x'));
    await store.putIfMatch('.tmpx/real', bytes('y'), (await store.head('.tmpx/real'))?.etag ?? '');
    expect(await listKeys(store)).toEqual(['.tmpx/real']);
    expect(await listKeys(store, '.tm')).toEqual(['.tmpx/real']);
  });

  it('leaves no temp or lock file behind after writes, conflicts and deletes, once closed', async () => {
    const first = await store.putIfAbsent('k/a', bytes('1'));
    await store.putIfAbsent('k/a', bytes('2')).catch(() => undefined);
    await store.putIfMatch('k/a', bytes('3'), 'stale').catch(() => undefined);
    await store.putIfMatch('k/a', bytes('4'), first.etag);
    await store.put('k/b', bytes('5'));
    await store.delete('k/b');
    // Closing removes the spare temp files made for later writes; any other would be a leftover.
    await store.close();
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
  });

  it('writes a body of several MiB, too large to write in place, whole and in order', async () => {
    const body = new Uint8Array(9 * 2 ** 20 + 3);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31 + (i >>> 16)) & 0xff;
    const meta = await store.put('k/large', body);
    const read = await store.get('k/large');
    expect(meta.size).toBe(body.length);
    expect(Buffer.compare(read!.body, body)).toBe(0);
  });

  it('gives a rewrite of identical bytes a new etag', async () => {
    const first = await store.put('k/same', bytes('same'));
    const second = await store.put('k/same', bytes('same'));
    const third = await store.putIfMatch('k/same', bytes('same'), second.etag);
    expect(new Set([first.etag, second.etag, third.etag]).size).toBe(3);
  });

  it('refuses (INVALID_REQUEST) a key whose path is a directory of other objects, or runs through an object', async () => {
    await store.put('k/dir/child', bytes('x'));
    await expect(store.put('k/dir', bytes('x'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(store.putIfAbsent('k/dir', bytes('x'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(store.put('k/dir/child/grandchild', bytes('x'))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(await store.get('k/dir')).toBeNull();
    expect(await listKeys(store)).toEqual(['k/dir/child']);
  });

  it('removes temp files left by a crash when it opens, and keeps recent ones', async () => {
    const old = join(root, '.tmp', 'crashed.tmp');
    const recent = join(root, '.tmp', 'in-flight.tmp');
    await writeFile(old, 'x');
    await writeFile(recent, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(old, twoHoursAgo, twoHoursAgo);
    dir.fsStore();
    expect(await readdir(join(root, '.tmp'))).toEqual(['in-flight.tmp']);
  });

  it('putIfMatch is a compare-and-swap across processes: 4 processes × 25 increments make 100', async () => {
    await store.put('counter', bytes('0'));
    const worker = fileURLToPath(new URL('../support/cas-counter-worker.ts', import.meta.url));
    await Promise.all(Array.from({ length: 4 }, () => runProcess(worker, [root, 'counter', '25'])));
    expect(text((await store.get('counter'))?.body ?? bytes(''))).toBe('100');
  });
});

function runProcess(script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${script} exited ${code}: ${stderr}`)),
    );
  });
}

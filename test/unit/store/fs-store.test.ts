import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import type { FsStore } from '../../../shared/store/fs-store.ts';
import { RESERVED_SEGMENT } from '../../../shared/store/object-key.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';
import { waitFor } from '../../support/wait-for.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);

async function keys(store: FsStore | FaultyStore, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const page of store.list(prefix)) found.push(...page.map((m) => m.key));
  return found;
}

describe('file store staging: bytes made durable before their key is known', () => {
  let dir: TempDir;
  let store: FsStore;

  beforeEach(async () => {
    dir = await createTempDir('stage');
    store = dir.fsStore();
  });
  afterEach(() => dir.cleanup());

  it('a staged object is invisible until published, then reads back whole', async () => {
    const staged = await store.stage(bytes('entry'));
    expect(await keys(store, 'wal/')).toEqual([]);
    const meta = await staged.putIfAbsent('wal/1');
    expect(meta.size).toBe(5);
    expect(text((await store.get('wal/1'))?.body)).toBe('entry');
    await staged.discard();
    expect(text((await store.get('wal/1'))?.body)).toBe('entry');
    // Closed, the store has removed its spare temp files: anything left would be the staged one.
    await store.close();
    expect(await readdir(join(dir.path, RESERVED_SEGMENT))).toEqual([]);
  });

  it('publishing to a taken key is PRECONDITION_FAILED and leaves the object there as it was', async () => {
    await store.putIfAbsent('wal/1', bytes('first'));
    const staged = await store.stage(bytes('second'));
    await expect(staged.putIfAbsent('wal/1')).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await staged.putIfAbsent('wal/2');
    await staged.discard();
    expect(text((await store.get('wal/1'))?.body)).toBe('first');
    expect(text((await store.get('wal/2'))?.body)).toBe('second');
  });

  it('a publish whose signal has already fired never lands', async () => {
    const staged = await store.stage(bytes('late'));
    await expect(staged.putIfAbsent('wal/1', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await staged.discard();
    expect(await store.get('wal/1')).toBeNull();
  });

  it('through the fault-injecting store the publish is a put-if-absent: counted, and its faults strike', async () => {
    const faulty = new FaultyStore(store);
    faulty.inject({ op: 'putIfAbsent', fault: 'fail', times: 1 });
    const staged = await faulty.stage!(bytes('entry'));
    await expect(staged.putIfAbsent('wal/1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await faulty.get('wal/1')).toBeNull();
    await staged.putIfAbsent('wal/1');
    await staged.discard();
    expect(faulty.calls.putIfAbsent).toBe(2);
    expect(await keys(faulty, 'wal/')).toEqual(['wal/1']);
  });
});

describe('file store spare temp files: made ahead, so a write only opens one', () => {
  let dir: TempDir;
  let store: FsStore;
  const tempDir = () => join(dir.path, RESERVED_SEGMENT);

  beforeEach(async () => {
    dir = await createTempDir('spares');
    store = dir.fsStore();
  });
  afterEach(() => dir.cleanup());

  async function spares(atLeast = 1): Promise<string[]> {
    return waitFor(
      async () => {
        const names = await readdir(tempDir());
        return names.length >= atLeast ? names : null;
      },
      { message: `${atLeast} spare temp files` },
    );
  }

  it('after a write, empty temp files wait for the next ones; closing removes them', async () => {
    expect(await readdir(tempDir())).toEqual([]);
    await store.putIfAbsent('wal/1', bytes('entry'));
    const ready = await spares();
    for (const name of ready) expect((await stat(join(tempDir(), name))).size).toBe(0);
    await store.close();
    expect(await readdir(tempDir())).toEqual([]);
  });

  it('the next write fills a spare, and nothing of it stays under the temp directory', async () => {
    await store.putIfAbsent('wal/1', bytes('first'));
    // Spares are made one after another: once a second is on disk, the first is ready to take.
    const before = new Set(await spares(2));
    await store.putIfAbsent('wal/2', bytes('second'));
    const after = new Set(await readdir(tempDir()));
    expect([...before].filter((name) => !after.has(name))).toHaveLength(1);
    expect(text((await store.get('wal/2'))?.body)).toBe('second');
  });

  it('a spare past half the age at which stores sweep temp files is removed, not filled', async () => {
    const sweeping = dir.fsStore({ tempMaxAgeMs: 400 });
    await sweeping.putIfAbsent('k/a', bytes('a'));
    // Two or more: without the rule the write would fill one and leave the others.
    const aged = await spares(2);
    await sleep(250);
    await sweeping.putIfAbsent('k/b', bytes('b'));
    const left = new Set(await readdir(tempDir()));
    expect(aged.filter((name) => left.has(name))).toEqual([]);
    expect(text((await sweeping.get('k/b'))?.body)).toBe('b');
  });

  it('spares swept away by another store are passed over: every write still lands whole', async () => {
    await store.put('k/a', bytes('a'));
    await spares();
    // What a store opening on this directory does to temp files it takes for a crash's leftovers.
    for (const name of await readdir(tempDir())) await rm(join(tempDir(), name));
    await store.putIfAbsent('k/b', bytes('b'));
    const staged = await store.stage(bytes('c'));
    await staged.putIfAbsent('k/c');
    await staged.discard();
    await store.put('k/d', bytes('d'));
    expect(await keys(store, 'k/')).toEqual(['k/a', 'k/b', 'k/c', 'k/d']);
    expect(text((await store.get('k/b'))?.body)).toBe('b');
    expect(text((await store.get('k/c'))?.body)).toBe('c');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FsStore } from '../../shared/store/fs-store.ts';
import { generationKey, walKey } from '../../shared/table/paths.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const BODY = new Uint8Array(4 * 1024 * 1024).fill(7);

/** A signal that aborts once the operation has started and is waiting on the file system. */
function abortedOnceStarted(): AbortSignal {
  const controller = new AbortController();
  setImmediate(() => controller.abort());
  return controller.signal;
}

describe('file store (suspected: the put timeout is checked only at the start)', () => {
  let dir: TempDir;
  let store: FsStore;

  beforeEach(async () => {
    dir = await createTempDir('fs-abort');
    store = dir.fsStore();
  });

  afterEach(async () => {
    await dir.cleanup();
  });

  it('a putIfAbsent whose caller gave up while it ran never lands', async () => {
    const key = walKey('t', 0, 1);
    await expect(store.putIfAbsent(key, BODY, { signal: abortedOnceStarted() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(await store.get(key)).toBeNull();
    await expect(store.putIfAbsent(key, BODY)).resolves.toMatchObject({ size: BODY.byteLength });
  });

  it('a put whose caller gave up while it ran leaves the old object in place', async () => {
    const key = generationKey('t', 0, 1);
    await store.put(key, new Uint8Array([1, 2, 3]));
    await expect(store.put(key, BODY, { signal: abortedOnceStarted() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect([...((await store.get(key))?.body ?? [])]).toEqual([1, 2, 3]);
  });
});

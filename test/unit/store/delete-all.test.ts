import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSluiceError } from '../../../shared/errors.ts';
import { deleteAll } from '../../../shared/store/delete-all.ts';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

const KEYS = Array.from({ length: 100 }, (_, i) => `gc/${String(i).padStart(3, '0')}.bin`);

describe('deleteAll', () => {
  let dir: TempDir;
  let store: FaultyStore;

  beforeEach(async () => {
    dir = await createTempDir('delete-all');
    store = new FaultyStore(dir.fsStore());
    for (const key of KEYS) await store.put(key, new Uint8Array([1]));
  });

  afterEach(() => dir.cleanup());

  async function remaining(): Promise<number> {
    let n = 0;
    for await (const page of store.list('gc/')) n += page.length;
    return n;
  }

  it('deletes every key, many at a time', async () => {
    store.inject({ op: 'delete', latencyMs: 5 });
    expect(await deleteAll(store, KEYS)).toBe(KEYS.length);
    expect(await remaining()).toBe(0);
  });

  it('on a failure starts no further delete, and answers only once none is still running', async () => {
    store.inject({ op: 'delete', latencyMs: 10 });
    store.inject({ op: 'delete', key: KEYS[40]!, fault: 'fail', times: 1 });
    const error = await deleteAll(store, KEYS).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isSluiceError(error, 'STORE_UNAVAILABLE')).toBe(true);
    const callsAtAnswer = store.calls.delete;
    const leftAtAnswer = await remaining();
    // The keys queued behind the failure were never asked for.
    expect(callsAtAnswer).toBeLessThan(KEYS.length);
    await sleep(100);
    expect(store.calls.delete).toBe(callsAtAnswer);
    expect(await remaining()).toBe(leftAtAnswer);
    expect(leftAtAnswer).toBeGreaterThan(0);
  });
});

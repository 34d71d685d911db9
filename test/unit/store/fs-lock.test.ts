import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../../shared/store/fs-lock.ts';

describe('file lock (the file store’s per-key compare-and-swap guard)', () => {
  let dir: string;
  let path: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-lock-'));
    path = join(dir, 'key.lock');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const options = { staleMs: 10_000, timeoutMs: 10_000 };

  it('lets one holder in at a time', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const lock = await acquireFileLock(path, options);
        inside += 1;
        most = Math.max(most, inside);
        await sleep(2);
        inside -= 1;
        await lock.release();
      }),
    );
    expect(most).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks a lock left by a dead holder once it is older than staleMs', async () => {
    await writeFile(path, 'token-of-a-dead-process');
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(path, longAgo, longAgo);
    const lock = await acquireFileLock(path, { staleMs: 1_000, timeoutMs: 2_000 });
    await lock.assertHeld();
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not break a fresh lock: the waiter gives up after timeoutMs with STORE_UNAVAILABLE', async () => {
    const holder = await acquireFileLock(path, options);
    await expect(acquireFileLock(path, { staleMs: 10_000, timeoutMs: 50 })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    await holder.assertHeld();
    await holder.release();
  });

  it('stops waiting with ABORTED when the signal aborts', async () => {
    const holder = await acquireFileLock(path, options);
    const waiting = acquireFileLock(path, { ...options, signal: AbortSignal.timeout(30) });
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    await holder.release();
  });

  it('a holder whose lock was broken learns it before writing, and its release leaves the new holder alone', async () => {
    const slow = await acquireFileLock(path, options);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(path, longAgo, longAgo);
    const next = await acquireFileLock(path, { staleMs: 1_000, timeoutMs: 2_000 });
    await expect(slow.assertHeld()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await slow.release();
    await next.assertHeld();
    await next.release();
  });
});

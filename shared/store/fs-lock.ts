/**
 * A lock shared by every process that opens the same store directory: a lock file that
 * exists while someone holds it. It is created with link(), which is atomic and fails
 * when the name is taken, so the file always carries its holder's token from its first
 * instant. A holder that died leaves its file behind; after `staleMs` another process
 * breaks it. Holders keep the lock for a rename and a stat (milliseconds), so `staleMs`
 * must stay far above that: a live holder frozen for longer than `staleMs` can lose it.
 */
import { randomUUID } from 'node:crypto';
import { link, open, rename, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { SluiceError } from '../errors.ts';
import { abortedError, isAbortError, throwIfAborted } from './abort.ts';
import { errnoCode } from './errno.ts';

export interface FileLockOptions {
  /** A lock file older than this belongs to a dead holder and may be broken. */
  staleMs: number;
  /** Stop waiting after this long (STORE_UNAVAILABLE). */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface FileLock {
  /** Throws unless the lock file is still ours; called right before the protected write. */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

const RETRY_MIN_MS = 1;
const RETRY_JITTER_MS = 4;

export async function acquireFileLock(path: string, options: FileLockOptions): Promise<FileLock> {
  const token = randomUUID();
  const candidate = `${path}.${token}`;
  await writeFile(candidate, token, { flag: 'wx' });
  try {
    await waitForLock(path, candidate, options);
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
  return heldLock(path, token);
}

async function waitForLock(path: string, candidate: string, options: FileLockOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    throwIfAborted(options.signal, 'lock');
    if (await tryLink(candidate, path)) return;
    await breakIfStale(path, options.staleMs);
    if (Date.now() > deadline) {
      throw new SluiceError('STORE_UNAVAILABLE', `lock ${path} still held after ${options.timeoutMs} ms`, {
        path,
      });
    }
    await pause(options.signal);
  }
}

async function tryLink(candidate: string, path: string): Promise<boolean> {
  try {
    await link(candidate, path);
    return true;
  } catch (err) {
    if (errnoCode(err) === 'EEXIST') return false;
    throw err;
  }
}

async function breakIfStale(path: string, staleMs: number): Promise<void> {
  const seen = await readLock(path);
  if (!seen || Date.now() - seen.mtimeMs < staleMs) return;
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return;
    throw err;
  }
  const moved = await readLock(aside);
  // Between our read and the rename, another process may have broken the stale lock and
  // taken a fresh one: put that one back under its name.
  if (moved && moved.token !== seen.token) await link(aside, path).catch(() => undefined);
  await unlink(aside);
}

/** Token and age read through one descriptor, so both belong to the same file. */
async function readLock(path: string): Promise<{ token: string; mtimeMs: number } | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const { mtimeMs } = await handle.stat();
    return { token: await handle.readFile('utf8'), mtimeMs };
  } finally {
    await handle.close();
  }
}

function heldLock(path: string, token: string): FileLock {
  const isHeld = async () => (await readLock(path))?.token === token;
  return {
    async assertHeld() {
      if (!(await isHeld())) {
        throw new SluiceError('STORE_UNAVAILABLE', `lock ${path} was broken while held`, { path });
      }
    },
    async release() {
      if (await isHeld()) await unlink(path).catch(() => undefined);
    },
  };
}

async function pause(signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(RETRY_MIN_MS + Math.random() * RETRY_JITTER_MS, undefined, { signal });
  } catch (err) {
    throw isAbortError(err) ? abortedError('lock', err) : err;
  }
}

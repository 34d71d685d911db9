/**
 * The embedded object store: a directory tree that mirrors the key layout (docs/design.md,
 * "Object layout", which also says which calls go to libuv's thread pool and why).
 *
 * Every write lands whole: the bytes go to a temp file under `.tmp/`, which is fsynced and
 * then linked (put-if-absent) or renamed (put, put-if-match) to the key's path, and the
 * parent directory is fsynced before the write returns (I1: an ack means the object
 * survives a crash); writes that wait for an fsync of one directory at once share it
 * (`DirectorySyncs`). The calls on one file that usually touch only the page cache are
 * made in place; fsyncs, reads, large writes and a listing's stats go to the thread pool,
 * and so does the create of the next temp file, made ahead (`SpareTempFiles`).
 * Replacing writes and deletes hold a per-key lock file, so a put-if-match is a
 * compare-and-swap across every process sharing the directory. Put-if-absent needs no
 * lock: link() fails atomically when the name is taken, and a replacing rename never
 * leaves the name empty for it to slip in.
 */
import { createHash } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  fdatasync,
  fstatSync,
  fsync,
  fsyncSync,
  futimesSync,
  linkSync,
  mkdirSync,
  openSync,
  read,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { SluiceError } from '../errors.ts';
import { abortedError, isAbortError, throwIfAborted } from './abort.ts';
import { assertValidRange, clampRange } from './byte-range.ts';
import { DirectorySyncs } from './directory-syncs.ts';
import { errnoCode } from './errno.ts';
import { acquireFileLock, type FileLock } from './fs-lock.ts';
import { pageSizeOf } from './list-options.ts';
import { assertValidKey, assertValidPrefix, compareKeys, RESERVED_SEGMENT } from './object-key.ts';
import type {
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  PutOptions,
  StagedObject,
  StoredObject,
} from './object-store.ts';
import { removeTempFile, SpareTempFiles } from './spare-temp-files.ts';

export interface FsStoreOptions {
  /** A key lock older than this was left by a dead process and is broken. */
  staleLockMs?: number;
  /** Files in `.tmp/` older than this are leftovers of a crash; removed when the store opens. */
  tempMaxAgeMs?: number;
  /** Makes a directory's entries durable (fsync); a test wraps it to see when it happens. */
  syncDirectory?: (dir: string) => Promise<void>;
  /** Makes a background write's bytes so far durable (fdatasync); a test wraps it to count the steps. */
  syncData?: (fd: number) => Promise<void>;
}

const DEFAULTS: Required<FsStoreOptions> = {
  staleLockMs: 10_000,
  tempMaxAgeMs: 60 * 60 * 1000,
  syncDirectory: fsyncDir,
  syncData: promisify(fdatasync),
};
/** As S3's ListObjectsV2, so callers see the same pages from either store. */
const MAX_PAGE_SIZE = 1000;
/** A directory ctime this much older than the clock can no longer be repeated by a later link. */
const CTIME_SETTLED_NS = 50_000_000n;
/** Errors that mean "no object here" when reading or deleting. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);
/**
 * A body up to this size is written in place, in one call that copies it into the page
 * cache (about 0.1 ms per MiB here); a larger one is written from the thread pool, so a
 * flush's L0 file never holds up the event loop.
 */
const WRITE_IN_PLACE_MAX_BYTES = 1 << 20;
/** What the thread pool writes of a large body per call, checking for an abort between calls. */
const WRITE_CHUNK_BYTES = 8 << 20;
/**
 * A large background write is written and made durable this much at a time, so the disk
 * never holds megabytes of its dirty pages for an acked write's fsync to queue behind: with
 * the flush's L0 files written in one go, a lone writer's ack p99 was about a third higher.
 */
const BACKGROUND_STEP_BYTES = 1 << 20;

const fsyncInPool = promisify(fsync);
const writeInPool = promisify(write);
const readInPool = promisify(read);

interface TempFile {
  path: string;
  stat: BigIntStats;
}

export class FsStore implements ObjectStore {
  readonly url: string;
  readonly root: string;
  private readonly options: Required<FsStoreOptions>;
  private readonly tempDir: string;
  /** Directories whose entry in their parent is known to be durable, by absolute path. */
  private readonly durableDirs = new Map<string, Promise<void>>();
  /** The fsyncs of a directory after writes in it, shared by the writes that wait at once. */
  private readonly dirSyncs: DirectorySyncs;
  private readonly spareTemps: SpareTempFiles;
  /** Listed directories this store fsynced, with the ctime each had just before. */
  private readonly syncedDirs = new Map<string, { ctimeNs: bigint; settled: boolean }>();

  /** Creates the root directory if needed; synchronous, as a store is opened once at start-up. */
  constructor(root: string, options: FsStoreOptions = {}) {
    this.root = resolve(root);
    this.options = { ...DEFAULTS, ...options };
    this.dirSyncs = new DirectorySyncs(this.options.syncDirectory);
    this.url = pathToFileURL(this.root).href;
    this.tempDir = join(this.root, RESERVED_SEGMENT);
    this.spareTemps = new SpareTempFiles(this.tempDir, this.options.tempMaxAgeMs);
    try {
      mkdirDurablySync(this.root);
      mkdirSync(this.tempDir, { recursive: true });
      this.removeOldTempFiles();
    } catch (err) {
      throw storeError(err, 'open', this.root);
    }
  }

  get(key: string, options: GetOptions = {}): Promise<StoredObject | null> {
    return guard('get', key, async () => {
      const path = this.pathOf(key);
      if (options.range) assertValidRange(options.range);
      throwIfAborted(options.signal, 'get');
      const fd = openIfPresent(path);
      if (fd === null) return null;
      try {
        const stats = fstatSync(fd, { bigint: true });
        if (!stats.isFile()) return null;
        const meta = metaOf(key, stats);
        const { start, end } = clampRange(options.range, meta.size);
        return { body: await readAt(fd, start, end - start), meta };
      } finally {
        closeSync(fd);
      }
    });
  }

  head(key: string, options: OpOptions = {}): Promise<ObjectMeta | null> {
    return guard('head', key, async () => {
      const path = this.pathOf(key);
      throwIfAborted(options.signal, 'head');
      return this.metaAt(key, path);
    });
  }

  put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectMeta> {
    return guard('put', key, async () => {
      const path = this.pathOf(key);
      throwIfAborted(options.signal, 'put');
      await this.ensureDir(dirname(path));
      const syncStep = options.background ? this.options.syncData : undefined;
      const temp = await this.writeTemp('put', body, options.signal, syncStep);
      await this.replaceLocked(key, path, temp, options.signal, async () => undefined);
      await this.dirSyncs.sync(dirname(path));
      return metaOf(key, temp.stat);
    });
  }

  putIfAbsent(key: string, body: Uint8Array, options: OpOptions = {}): Promise<ObjectMeta> {
    return guard('putIfAbsent', key, async () => {
      this.pathOf(key);
      throwIfAborted(options.signal, 'putIfAbsent');
      const staged = await this.stage(body, options);
      try {
        return await staged.putIfAbsent(key, options);
      } finally {
        await staged.discard();
      }
    });
  }

  /** The temp file, fsynced; publishing links it to its key and fsyncs the key's directory. */
  stage(body: Uint8Array, options: OpOptions = {}): Promise<StagedObject> {
    return guard('stage', RESERVED_SEGMENT, async () => {
      throwIfAborted(options.signal, 'stage');
      const temp = await this.writeTemp('stage', body, options.signal);
      return {
        putIfAbsent: (key, opts = {}) => this.publish(key, temp, opts.signal),
        discard: async () => removeTempFile(temp.path),
      };
    });
  }

  putIfMatch(key: string, body: Uint8Array, etag: string, options: OpOptions = {}): Promise<ObjectMeta> {
    return guard('putIfMatch', key, async () => {
      const path = this.pathOf(key);
      throwIfAborted(options.signal, 'putIfMatch');
      const temp = await this.writeTemp('putIfMatch', body, options.signal);
      await this.replaceLocked(key, path, temp, options.signal, async () => {
        const current = await this.metaAt(key, path);
        if (current?.etag !== etag) {
          throw new SluiceError('PRECONDITION_FAILED', `object ${key} does not have etag ${etag}`, {
            key,
            expected: etag,
            actual: current?.etag ?? null,
          });
        }
      });
      await this.dirSyncs.sync(dirname(path));
      return metaOf(key, temp.stat);
    });
  }

  list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta[]> {
    return this.pages(prefix, options);
  }

  delete(key: string, options: OpOptions = {}): Promise<void> {
    return guard('delete', key, async () => {
      const path = this.pathOf(key);
      throwIfAborted(options.signal, 'delete');
      const removed = await this.withKeyLock(key, options.signal, () => unlinkIfPresent(path));
      if (removed) await this.dirSyncs.sync(dirname(path));
    });
  }

  close(): Promise<void> {
    return this.spareTemps.close();
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const path = join(this.root, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) {
      throw new SluiceError('INVALID_REQUEST', `object key ${JSON.stringify(key)} leaves the store`, { key });
    }
    return path;
  }

  private async metaAt(key: string, path: string): Promise<ObjectMeta | null> {
    try {
      // From the pool: a listing stats every object it returns, which on a cold cache would
      // hold the event loop for as many inode reads.
      const stats = await stat(path, { bigint: true });
      return stats.isFile() ? metaOf(key, stats) : null;
    } catch (err) {
      if (ABSENT.has(errnoCode(err) ?? '')) return null;
      throw err;
    }
  }

  /**
   * Writes `body` to a fresh temp file and makes its bytes durable, for the store operation
   * `op`; with `syncStep`, a large body is made durable step by step as it is written.
   */
  private async writeTemp(
    op: string,
    body: Uint8Array,
    signal: AbortSignal | undefined,
    syncStep?: (fd: number) => Promise<void>,
  ): Promise<TempFile> {
    const { path, fd } = this.spareTemps.take();
    try {
      await writeBody(op, fd, body, signal, syncStep);
      // The etag is made of inode, size and mtime. Inode numbers are reused and kernel
      // timestamps are coarse, so a random sub-second mtime keeps a replaced object from
      // repeating an old etag; lastModified reports whole seconds, as S3 does.
      const mtime = Math.floor(Date.now() / 1000) + Math.random() * 0.999;
      futimesSync(fd, mtime, mtime);
      await fsyncInPool(fd);
      return { path, stat: fstatSync(fd, { bigint: true }) };
    } catch (err) {
      removeTempFile(path);
      throw err;
    } finally {
      closeSync(fd);
    }
  }

  /** Under the key's lock: check the precondition, then rename the temp file over the key. */
  private async replaceLocked(
    key: string,
    path: string,
    temp: TempFile,
    signal: AbortSignal | undefined,
    precondition: () => Promise<void>,
  ): Promise<void> {
    try {
      await this.withKeyLock(key, signal, async (lock) => {
        await precondition();
        await lock.assertHeld();
        throwIfAborted(signal, 'put');
        renameSync(temp.path, path);
      });
    } catch (err) {
      removeTempFile(temp.path);
      if (errnoCode(err) === 'EISDIR') throw collision(key, 'a directory holds other objects under this key');
      throw err;
    }
  }

  private async withKeyLock<T>(
    key: string,
    signal: AbortSignal | undefined,
    critical: (lock: FileLock) => Promise<T>,
  ): Promise<T> {
    const name = createHash('sha256').update(key).digest('hex').slice(0, 40);
    const lock = await acquireFileLock(join(this.tempDir, `${name}.lock`), {
      staleMs: this.options.staleLockMs,
      timeoutMs: 3 * this.options.staleLockMs,
      signal,
    });
    try {
      return await critical(lock);
    } finally {
      await lock.release();
    }
  }

  /** mkdir -p, where every directory's entry in its parent is durable before a write inside it is acked. */
  private ensureDir(dir: string): Promise<void> {
    if (dir === this.root) return Promise.resolve();
    let ready = this.durableDirs.get(dir);
    if (!ready) {
      ready = this.makeDurableDir(dir);
      this.durableDirs.set(dir, ready);
      ready.catch(() => this.durableDirs.delete(dir));
    }
    return ready;
  }

  private async makeDurableDir(dir: string): Promise<void> {
    const parent = dirname(dir);
    await this.ensureDir(parent);
    try {
      await mkdir(dir);
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
      if (!(await stat(dir)).isDirectory()) {
        throw collision(dir.slice(this.root.length + 1), 'an object already has this name');
      }
    }
    // I1: whoever created the directory, its entry must be durable before anything inside it is acked.
    await this.dirSyncs.sync(parent);
  }

  private publish(key: string, temp: TempFile, signal: AbortSignal | undefined): Promise<ObjectMeta> {
    return guard('putIfAbsent', key, async () => {
      const path = this.pathOf(key);
      await this.ensureDir(dirname(path));
      // Checked last before the link: a writer that gave up never lands afterwards.
      throwIfAborted(signal, 'putIfAbsent');
      try {
        linkSync(temp.path, path);
      } catch (err) {
        if (errnoCode(err) === 'EEXIST') throw await this.existingObjectError(key, path);
        throw err;
      }
      await this.dirSyncs.sync(dirname(path));
      return metaOf(key, temp.stat);
    });
  }

  private async existingObjectError(key: string, path: string): Promise<SluiceError> {
    const existing = await stat(path).catch(() => null);
    if (existing?.isDirectory()) return collision(key, 'a directory holds other objects under this key');
    return new SluiceError('PRECONDITION_FAILED', `object ${key} already exists`, { key });
  }

  private async *pages(prefix: string, options: ListOptions): AsyncGenerator<ObjectMeta[]> {
    assertValidPrefix(prefix);
    const pageSize = pageSizeOf(options, MAX_PAGE_SIZE);
    const cut = prefix.lastIndexOf('/') + 1;
    let page: ObjectMeta[] = [];
    try {
      throwIfAborted(options.signal, 'list');
      for await (const meta of this.walk(prefix.slice(0, cut), prefix.slice(cut), options.startAfter)) {
        page.push(meta);
        if (page.length === pageSize) {
          throwIfAborted(options.signal, 'list');
          yield page;
          page = [];
        }
      }
    } catch (err) {
      throw storeError(err, 'list', prefix);
    }
    if (page.length > 0) yield page;
  }

  /**
   * Objects under directory `dirKey` (a key prefix ending in '/', or '') whose names start
   * with `namePrefix`, in ascending key order: entries are sorted as the keys they hold
   * ("name/" for a directory), so a directory's keys come out contiguously in their place.
   */
  private async *walk(dirKey: string, namePrefix: string, startAfter?: string): AsyncGenerator<ObjectMeta> {
    const entries = await readDirIfPresent(join(this.root, dirKey));
    const candidates = entries
      .filter((entry) => entry.name.startsWith(namePrefix) && (entry.isFile() || entry.isDirectory()))
      .filter((entry) => !(dirKey === '' && entry.name === RESERVED_SEGMENT))
      .map((entry) => ({
        key: `${dirKey}${entry.name}${entry.isDirectory() ? '/' : ''}`,
        dir: entry.isDirectory(),
      }))
      // Before the sort: a WAL directory keeps a GC grace of entries, and a seal lists only
      // those past its last one.
      .filter((candidate) => !isListedBefore(candidate, startAfter))
      .sort((a, b) => compareKeys(a.key, b.key));
    // A name is visible from link() on, before the writer's directory fsync makes it durable.
    // A lister acts on what it returns (a seal seals it, a read serves it), so it makes the
    // directory durable first: nothing it returns can vanish in a power loss after.
    if (candidates.some((c) => !c.dir)) await this.syncListed(resolve(this.root, dirKey));
    for (const { key, dir } of candidates) {
      if (dir) {
        yield* this.walk(key, '', startAfter);
      } else {
        const meta = await this.metaAt(key, join(this.root, key));
        if (meta) yield meta;
      }
    }
  }

  /**
   * fsyncs a listed directory unless it has not changed since a sync of this store: its
   * ctime is the same as one read before that sync, and was read long enough after the
   * ctime itself that no later link could have kept it (kernel timestamps are coarse).
   */
  private async syncListed(dir: string): Promise<void> {
    const before = await stat(dir, { bigint: true });
    const synced = this.syncedDirs.get(dir);
    if (synced?.ctimeNs === before.ctimeNs && synced.settled) return;
    const readAt = BigInt(Date.now()) * 1_000_000n;
    await this.options.syncDirectory(dir);
    this.syncedDirs.set(dir, {
      ctimeNs: before.ctimeNs,
      settled: readAt - before.ctimeNs >= CTIME_SETTLED_NS,
    });
  }

  private removeOldTempFiles(): void {
    const cutoff = Date.now() - this.options.tempMaxAgeMs;
    for (const name of readdirSync(this.tempDir)) {
      const path = join(this.tempDir, name);
      if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? cutoff) < cutoff)
        rmSync(path, { force: true });
    }
  }
}

/** Whether a listing that starts after `startAfter` passes `candidate` by: a directory only if no key in it comes later. */
function isListedBefore(candidate: { key: string; dir: boolean }, startAfter: string | undefined): boolean {
  if (startAfter === undefined || compareKeys(candidate.key, startAfter) > 0) return false;
  return !(candidate.dir && startAfter.startsWith(candidate.key));
}

function metaOf(key: string, stats: BigIntStats): ObjectMeta {
  return {
    key,
    size: Number(stats.size),
    etag: `${stats.ino.toString(16)}-${stats.size.toString(16)}-${stats.mtimeNs.toString(16)}`,
    lastModified: new Date(Number(stats.mtimeNs / 1_000_000_000n) * 1000),
  };
}

async function guard<T>(op: string, key: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    throw storeError(err, op, key);
  }
}

function storeError(err: unknown, op: string, key: string): SluiceError {
  if (err instanceof SluiceError) return err;
  if (isAbortError(err)) return abortedError(op, err);
  const message = err instanceof Error ? err.message : String(err);
  return new SluiceError(
    'STORE_UNAVAILABLE',
    `file store ${op} ${key} failed: ${message}`,
    { op, key, errno: errnoCode(err) },
    { cause: err },
  );
}

function collision(key: string, reason: string): SluiceError {
  return new SluiceError('INVALID_REQUEST', `object key ${JSON.stringify(key)} cannot be used: ${reason}`, {
    key,
  });
}

function mkdirDurablySync(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  for (let created = dir; created !== dirname(first); created = dirname(created)) {
    const descriptor = openSync(dirname(created), 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const fd = openSync(dir, 'r');
  try {
    await fsyncInPool(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes all of `body` at the start of the fresh file `fd`: in place when small, else from
 * the pool, in steps that `syncStep` makes durable one by one when given.
 */
async function writeBody(
  op: string,
  fd: number,
  body: Uint8Array,
  signal: AbortSignal | undefined,
  syncStep: ((fd: number) => Promise<void>) | undefined,
): Promise<void> {
  throwIfAborted(signal, op);
  const inPlace = body.byteLength <= WRITE_IN_PLACE_MAX_BYTES;
  const chunk = syncStep ? BACKGROUND_STEP_BYTES : WRITE_CHUNK_BYTES;
  let written = 0;
  while (written < body.byteLength) {
    if (inPlace) {
      written += writeSync(fd, body, written);
    } else {
      const length = Math.min(chunk, body.byteLength - written);
      written += (await writeInPool(fd, body, written, length, written)).bytesWritten;
      if (syncStep) await syncStep(fd);
      throwIfAborted(signal, op);
    }
  }
}

function openIfPresent(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch (err) {
    if (ABSENT.has(errnoCode(err) ?? '')) return null;
    throw err;
  }
}

/** Reads from the thread pool: unlike the calls made in place, a read may wait on the disk. */
async function readAt(fd: number, start: number, length: number): Promise<Buffer> {
  const body = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await readInPool(fd, body, filled, length - filled, start + filled);
    if (bytesRead === 0)
      throw new SluiceError('DATA_CORRUPT', 'object shorter than its recorded size', { length });
    filled += bytesRead;
  }
  return body;
}

async function readDirIfPresent(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (ABSENT.has(errnoCode(err) ?? '')) return [];
    throw err;
  }
}

async function unlinkIfPresent(path: string): Promise<boolean> {
  try {
    unlinkSync(path);
    return true;
  } catch (err) {
    if (ABSENT.has(errnoCode(err) ?? '')) return false;
    throw err;
  }
}

/**
 * The stores the write bench runs against, and the floor on each: a temp-dir file store
 * (fsync of file and directory) seen through the fault-injecting store, which counts every
 * request and, for the object-store profiles, adds latency drawn per request from a
 * log-normal distribution: S3 Standard-like (median 20 ms, a heavy tail: p99 ≈ 80 ms) and
 * S3 Express One Zone-like (median 5 ms, p99 ≈ 10 ms).
 *
 * The floor is a bare put-if-absent of the same bytes to the same store, one per write, at
 * the same concurrency: `floor` through the durable put, `floor-nosync` written and linked
 * the same way without any fsync, so a reader sees how much of a gap is the fsync itself.
 */
import { closeSync, fstatSync, futimesSync, linkSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FaultyStore } from '../../shared/store/faulty-store.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import { SpareTempFiles } from '../../shared/store/spare-temp-files.ts';

export const STORE_PROFILES = ['local', 's3std', 's3x'] as const;
export type StoreProfile = (typeof STORE_PROFILES)[number];

const LATENCY: Record<Exclude<StoreProfile, 'local'>, { medianMs: number; sigma: number }> = {
  s3std: { medianMs: 20, sigma: 0.6 },
  s3x: { medianMs: 5, sigma: 0.3 },
};

/** A draw from a log-normal distribution with the given median (Box–Muller). */
function logNormal(medianMs: number, sigma: number): () => number {
  return () => {
    const u = 1 - Math.random();
    const v = Math.random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return medianMs * Math.exp(sigma * z);
  };
}

/** The file store in `dir`, behind a fault-injecting store that counts and delays requests. */
export function openBenchStore(dir: string, profile: StoreProfile): FaultyStore {
  const store = new FaultyStore(new FsStore(dir));
  if (profile !== 'local') {
    const { medianMs, sigma } = LATENCY[profile];
    store.inject({ latencyMs: logNormal(medianMs, sigma), permanent: true });
  }
  return store;
}

export interface RequestCounts {
  put: number;
  get: number;
  list: number;
}

/** PUTs (every kind of write and delete), GETs (get, head) and LISTs made through `store`. */
export function requestCounts(store: FaultyStore): RequestCounts {
  const c = store.calls;
  return { put: c.put + c.putIfAbsent + c.putIfMatch + c.delete, get: c.get + c.head, list: c.list };
}

export function requestsSince(store: FaultyStore, before: RequestCounts): RequestCounts {
  return requestsBetween(before, requestCounts(store));
}

export function requestsBetween(before: RequestCounts, after: RequestCounts): RequestCounts {
  return { put: after.put - before.put, get: after.get - before.get, list: after.list - before.list };
}

export function addRequests(a: RequestCounts, b: RequestCounts): RequestCounts {
  return { put: a.put + b.put, get: a.get + b.get, list: a.list + b.list };
}

/** One put per call, with or without fsync, to fresh keys. */
export interface FloorPut {
  put(body: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export function durableFloor(store: FaultyStore): FloorPut {
  let n = 0;
  return {
    async put(body) {
      await store.putIfAbsent(`floor/wal/${String(++n).padStart(20, '0')}.arrow`, body);
    },
    close: () => store.close(),
  };
}

/**
 * The file store's put-if-absent minus its fsyncs, with the same calls made in place: a
 * spare temp file opened, written, stamped and closed, linked to its key and unlinked; the
 * object-store profile's latency is drawn the same way before each put. Every body is
 * written in place, as the store writes those up to 1 MiB: a WAL entry of this bench is
 * at most a few hundred KB.
 */
export async function noSyncFloor(dir: string, profile: StoreProfile): Promise<FloorPut> {
  const latency = profile === 'local' ? null : logNormal(LATENCY[profile].medianMs, LATENCY[profile].sigma);
  const keys = join(dir, 'floor', 'wal');
  const temp = join(dir, 'tmp');
  await mkdir(keys, { recursive: true });
  await mkdir(temp, { recursive: true });
  const spares = new SpareTempFiles(temp, Number.POSITIVE_INFINITY);
  let n = 0;
  return {
    async put(body) {
      if (latency) await new Promise((resolve) => setTimeout(resolve, latency()));
      const { path: tempPath, fd } = spares.take();
      try {
        writeSync(fd, body);
        const mtime = Date.now() / 1000;
        futimesSync(fd, mtime, mtime);
        fstatSync(fd, { bigint: true });
      } finally {
        closeSync(fd);
      }
      linkSync(tempPath, join(keys, `${String(++n).padStart(20, '0')}.arrow`));
      unlinkSync(tempPath);
    },
    close: () => spares.close(),
  };
}

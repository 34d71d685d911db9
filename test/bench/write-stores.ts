/**
 * The stores the write bench runs against, and the floor on each. `local`: a temp-dir file
 * store (fsync of file and directory). `s3std`, `s3express`: the project's S3-protocol test
 * server (test/support/s3-server.ts), one process of its own for the whole run, in memory on
 * loopback, which delays every request it serves by a log-normal draw: S3 Standard-like
 * (median 20 ms, sigma 0.6: p99 ≈ 80 ms) or S3 Express One Zone-like (median 4 ms, sigma
 * 0.3: p99 ≈ 8 ms). Its bucket lists in key order whatever the profile: `s3express` stands
 * for Express's latency and prices, not for a directory bucket's listing. Every system of a
 * case gets a place of its own (`benchPlace`): a temp dir, or a key prefix on the server
 * that is purged when the system closes. Sluice and the floor reach it through Sluice's own
 * store (`openStore`, as production builds it) behind the fault-injecting store, which only
 * counts their requests here; the server counts every request by directory and kind
 * (`serverRequests`), Lance's included.
 *
 * The floor is a bare put-if-absent of the same bytes to the same store, one per write, at
 * the same concurrency: `floor` through the durable put; on the local store also
 * `floor-nosync`, written and linked the same way without any fsync, so a reader sees how
 * much of a gap is the fsync itself.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, futimesSync, linkSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../shared/config.ts';
import { FaultyStore } from '../../shared/store/faulty-store.ts';
import type { ObjectStore, OpOptions } from '../../shared/store/object-store.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { SpareTempFiles } from '../../shared/store/spare-temp-files.ts';
import type { S3Op } from '../support/s3/fault-script.ts';
import type { S3TestServer } from '../support/s3-server.ts';
import { benchDir, emptyBenchDir } from './bench-dirs.ts';
import { round } from './write-drive.ts';

export const STORE_PROFILES = ['local', 's3std', 's3express'] as const;
export type StoreProfile = (typeof STORE_PROFILES)[number];
export type S3Profile = Exclude<StoreProfile, 'local'>;

export const S3_LATENCY: Record<S3Profile, { medianMs: number; sigma: number }> = {
  s3std: { medianMs: 20, sigma: 0.6 },
  s3express: { medianMs: 4, sigma: 0.3 },
};

/**
 * Request prices in dollars per 1,000, us-east-1: S3 Standard $0.005 per PUT, COPY, POST or
 * LIST and $0.0004 per GET (and HEAD); S3 Express One Zone $0.00113 and $0.00003 (AWS's S3
 * pricing page, and the S3 FAQ's Express pricing example).
 * DELETE is free on both; Express's per-GB upload and retrieval charges are left out.
 */
export const S3_PRICES = {
  s3Standard: { put: 0.005, get: 0.0004 },
  s3Express: { put: 0.00113, get: 0.00003 },
} as const;

/** The bench's S3 test server and the bucket every S3 case writes into. */
export interface BenchS3 {
  server: S3TestServer;
  bucket: string;
}

/** What a process needs to reach the bench's S3 endpoint (sent to the workers' process as JSON). */
export interface S3Endpoint {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export function s3EndpointOf(s3: BenchS3): S3Endpoint {
  const { server } = s3;
  return {
    endpoint: server.endpoint,
    bucket: s3.bucket,
    region: server.region,
    accessKeyId: server.credentials.accessKeyId,
    secretAccessKey: server.credentials.secretAccessKey,
  };
}

/** Where one system of a case keeps its objects: a temp dir, or a key prefix (ending in `/`) on the S3 endpoint. */
export type BenchLocation = { kind: 'file'; dir: string } | { kind: 's3'; s3: S3Endpoint; prefix: string };

export interface BenchPlace {
  location: BenchLocation;
  /** Frees what the system wrote there (truncated files, a purged prefix); never throws. */
  release(): Promise<void>;
}

/** A new place named after `name`: on the S3 endpoint when `s3` is given, else a temp dir. */
export async function benchPlace(name: string, s3: BenchS3 | null): Promise<BenchPlace> {
  if (!s3) {
    const dir = await benchDir(name);
    return { location: { kind: 'file', dir }, release: () => emptyBenchDir(dir) };
  }
  const prefix = `${name}-${randomBytes(4).toString('hex')}/`;
  return {
    location: { kind: 's3', s3: s3EndpointOf(s3), prefix },
    release: async () => {
      await s3.server.purge(s3.bucket, prefix).catch(() => undefined);
    },
  };
}

export type ConfigOverrides = NonNullable<Parameters<typeof loadConfig>[1]>;

/** The store settings of a place, as Sluice's configuration takes them. */
export function storeSettings(location: BenchLocation): ConfigOverrides {
  if (location.kind === 'file') return { storeUrl: `file://${location.dir}` };
  const { s3 } = location;
  return {
    storeUrl: `s3://${s3.bucket}/${location.prefix}`,
    s3: {
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    },
  };
}

/** The place's store as production opens it, behind a fault-injecting store that counts its requests. */
export function openBenchStore(location: BenchLocation): FaultyStore {
  return new FaultyStore(openStore(loadConfig({}, storeSettings(location))));
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

export const NO_REQUESTS: RequestCounts = { put: 0, get: 0, list: 0 };

/** The request kinds of the S3 test server, counted as `requestCounts` counts the store's. */
const KIND_OF: Record<S3Op, keyof RequestCounts> = {
  get: 'get',
  head: 'get',
  put: 'put',
  putIfAbsent: 'put',
  putIfMatch: 'put',
  delete: 'put',
  deleteMany: 'put',
  copy: 'put',
  multipart: 'put',
  list: 'list',
};

/**
 * The requests the S3 endpoint served so far under a place's prefix, in the directories
 * (`bucket/dir/`) that `dirs` accepts (all when omitted): requests of every client, Lance's
 * included, which no in-process count sees.
 */
export async function serverRequests(
  s3: BenchS3,
  location: BenchLocation,
  dirs: RegExp | null = null,
): Promise<RequestCounts> {
  if (location.kind !== 's3') return NO_REQUESTS;
  const byDir = await s3.server.requestsUnder(`${location.s3.bucket}/${location.prefix}`);
  const counts = { ...NO_REQUESTS };
  for (const [dir, kinds] of Object.entries(byDir)) {
    if (dirs && !dirs.test(dir)) continue;
    for (const [op, n] of Object.entries(kinds)) counts[KIND_OF[op as S3Op]] += n ?? 0;
  }
  return counts;
}

/**
 * Dollars per million writes for `requests` made by `writes` writes, at S3 Standard's and
 * S3 Express One Zone's request prices (LIST at the PUT price; deletes, counted with the
 * PUTs, are none of these systems' while they write, seal, flush and merge).
 */
export function dollarsPerMillionWrites(
  requests: RequestCounts,
  writes: number,
): { s3Standard: number; s3Express: number } | null {
  if (writes === 0) return null;
  // Per 1,000 requests, so a million writes cost 1,000 × the price per write.
  const cost = (price: { put: number; get: number }) =>
    round((((requests.put + requests.list) * price.put + requests.get * price.get) * 1000) / writes, 2);
  return { s3Standard: cost(S3_PRICES.s3Standard), s3Express: cost(S3_PRICES.s3Express) };
}

/**
 * `store`, with every put-if-absent of a WAL entry (`…/wal/{seq}.arrow`) timed from its call
 * to its answer, in ms: the endpoint's share of an ack. Staged puts (the file store's) are
 * published through their StagedObject and not timed, so only S3 cases have figures.
 */
export function timingWalPuts(store: ObjectStore): { store: ObjectStore; walPutMs: number[] } {
  const walPutMs: number[] = [];
  const timed = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'putIfAbsent') {
        return async (key: string, body: Uint8Array, options?: OpOptions) => {
          const t0 = performance.now();
          const meta = await target.putIfAbsent(key, body, options);
          if (WAL_ENTRY.test(key)) walPutMs.push(performance.now() - t0);
          return meta;
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: timed, walPutMs };
}

const WAL_ENTRY = /\/wal\/[^/]+$/;

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
 * spare temp file opened, written, stamped and closed, linked to its key and unlinked.
 * Every body is written in place, as the store writes those up to 1 MiB: a WAL entry of
 * this bench is at most a few hundred KB.
 */
export async function noSyncFloor(dir: string): Promise<FloorPut> {
  const keys = join(dir, 'floor', 'wal');
  const temp = join(dir, 'tmp');
  await mkdir(keys, { recursive: true });
  await mkdir(temp, { recursive: true });
  const spares = new SpareTempFiles(temp, Number.POSITIVE_INFINITY);
  let n = 0;
  return {
    async put(body) {
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

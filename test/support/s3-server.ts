/**
 * The project's own S3-protocol test server (test/support/s3/), started as a process of
 * its own on loopback: in memory, path-style, any signature accepted unchecked;
 * conditional PUT and CompleteMultipartUpload decided atomically (first to finish wins,
 * 412 for the rest, 404 for If-Match on a missing key); ListObjectsV2 with prefix,
 * delimiter, start-after and continuation tokens; ranged GET; multi-delete; and scripted
 * faults. `express` lists in no key order and refuses StartAfter, as S3 Express directory
 * buckets do; `ignoresConditions` takes conditional headers and ignores them, as GCS's XML
 * API and B2 do. Not a faithful S3 in every respect: only the calls Sluice and Lance make.
 */
import { fileURLToPath } from 'node:url';
import { type LoggedProcess, spawnLogged } from './logged-process.ts';
import type { FaultScript, InjectedFault, S3Op } from './s3/fault-script.ts';

/** Requests served, by kind, for each directory: `bucket/` and the key up to its last `/`. */
export type RequestsByDir = Record<string, Partial<Record<S3Op, number>>>;

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Replaces the fault script; its windows count from now. */
  setFaults(script: FaultScript): Promise<void>;
  stats(): Promise<{ requests: Record<string, number>; injected: InjectedFault[] }>;
  /** Requests served so far in the directories under `under` (`bucket/prefix`), by kind. */
  requestsUnder(under: string): Promise<RequestsByDir>;
  /** Drops every object under `prefix` of `bucket` at once; how many there were. */
  purge(bucket: string, prefix: string): Promise<number>;
  stop(): Promise<void>;
}

export interface S3ServerOptions {
  bucket?: string;
  /** More buckets beside `bucket` (a second endpoint's worth, e.g. for the WAL). */
  otherBuckets?: string[];
  express?: boolean;
  ignoresConditions?: boolean;
}

const MAIN = fileURLToPath(new URL('./s3/server-main.ts', import.meta.url));
const CREDENTIALS = { accessKeyId: 'sluice-test', secretAccessKey: 'sluice-test-secret' };

export async function startS3Server(options: S3ServerOptions | string = {}): Promise<S3TestServer> {
  const {
    bucket = 'sluice-test',
    otherBuckets = [],
    express = false,
    ignoresConditions = false,
  } = typeof options === 'string' ? { bucket: options } : options;
  const config = { buckets: [bucket, ...otherBuckets], express, ignoresConditions };
  const child: LoggedProcess = spawnLogged(MAIN, [JSON.stringify(config)], process.env);
  const { port } = (await child.waitForLine(
    (line) => typeof line.port === 'number',
    'the S3 test server to listen',
  )) as unknown as {
    port: number;
  };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    credentials: CREDENTIALS,
    async setFaults(script) {
      const response = await fetch(`${endpoint}/_s3test/faults`, {
        method: 'PUT',
        body: JSON.stringify(script),
      });
      if (response.status !== 204)
        throw new Error(`the S3 test server refused the fault script: ${response.status}`);
    },
    async stats() {
      return (await (await fetch(`${endpoint}/_s3test/stats`)).json()) as Awaited<
        ReturnType<S3TestServer['stats']>
      >;
    },
    async requestsUnder(under) {
      const response = await fetch(`${endpoint}/_s3test/ops?under=${encodeURIComponent(under)}`);
      return (await response.json()) as RequestsByDir;
    },
    async purge(bucket, prefix) {
      const response = await fetch(`${endpoint}/_s3test/purge`, {
        method: 'POST',
        body: JSON.stringify({ bucket, prefix }),
      });
      if (response.status !== 200)
        throw new Error(`the S3 test server refused the purge: ${response.status}`);
      return ((await response.json()) as { purged: number }).purged;
    },
    async stop() {
      await child.stop('SIGKILL');
    },
  };
}

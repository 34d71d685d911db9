/**
 * The one place that turns `storeUrl` (docs/design.md, "Environment": `SLUICE_STORE_URL`) into a store:
 * `file:///abs/dir`, `file://./rel/dir` (relative to the working directory) or
 * `s3://bucket/prefix`; with the WAL in a store of its own when `walStoreUrl` is set
 * (`SLUICE_WAL_STORE_URL`); wrapped in the fault plan of `storeFaultPlan` when a test run
 * sets one.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';
import { withFaultPlan } from './fault-plan.ts';
import { FsStore } from './fs-store.ts';
import { assertValidKey } from './object-key.ts';
import type { ObjectStore } from './object-store.ts';
import { S3Store } from './s3-store.ts';
import { WalRoutedStore } from './wal-routed-store.ts';

export type StoreLocation = { kind: 'file'; root: string } | { kind: 's3'; bucket: string; prefix: string };

/** S3's bucket naming rule (lower case, digits, dots, hyphens; 3 to 63 characters). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function openStore(
  config: Pick<Config, 'storeUrl' | 's3' | 'storeFaultPlan' | 'walStoreUrl' | 'walS3Endpoint'>,
): ObjectStore {
  const tables = openPlainStore(config);
  const store =
    config.walStoreUrl === undefined
      ? tables
      : new WalRoutedStore(
          tables,
          openPlainStore({
            storeUrl: config.walStoreUrl,
            s3: { ...config.s3, endpoint: config.walS3Endpoint ?? config.s3.endpoint },
          }),
        );
  return config.storeFaultPlan === undefined ? store : withFaultPlan(store, config.storeFaultPlan);
}

function openPlainStore(config: Pick<Config, 'storeUrl' | 's3'>): ObjectStore {
  const location = parseStoreUrl(config.storeUrl);
  if (location.kind === 'file') return new FsStore(location.root);
  const { endpoint, region, forcePathStyle, accessKeyId, secretAccessKey, express } = config.s3;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'set both S3 access key id and secret access key, or neither',
      {},
    );
  }
  return new S3Store({
    bucket: location.bucket,
    prefix: location.prefix,
    endpoint,
    region,
    forcePathStyle,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    connectTimeoutMs: config.s3.connectTimeoutMs,
    requestTimeoutMs: config.s3.requestTimeoutMs,
    maxSockets: config.s3.maxSockets,
    conditionalDeadlineMs: config.s3.putDeadlineMs,
    unorderedListing: express ?? location.bucket.endsWith(DIRECTORY_BUCKET_SUFFIX),
  });
}

/** S3 Express One Zone directory buckets are named `base--zone-id--x-s3`. */
const DIRECTORY_BUCKET_SUFFIX = '--x-s3';

export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  if (url.startsWith('file://')) return { kind: 'file', root: fileRoot(url, cwd) };
  const s3 = /^s3:\/\/([^/]*)\/?(.*)$/.exec(url);
  if (s3) return { kind: 's3', bucket: bucketName(url, s3[1] ?? ''), prefix: keyPrefix(url, s3[2] ?? '') };
  throw invalidUrl(url, 'expected file:///absolute/dir, file://./relative/dir or s3://bucket/prefix');
}

function fileRoot(url: string, cwd: string): string {
  const rest = url.slice('file://'.length);
  if (rest.startsWith('/')) {
    try {
      return fileURLToPath(url);
    } catch (err) {
      throw invalidUrl(url, (err as Error).message);
    }
  }
  if (rest === '.' || rest === '..' || rest.startsWith('./') || rest.startsWith('../'))
    return resolve(cwd, rest);
  throw invalidUrl(url, 'a file URL is file:///absolute/dir or file://./relative/dir');
}

function bucketName(url: string, bucket: string): string {
  if (!BUCKET_NAME.test(bucket)) throw invalidUrl(url, `"${bucket}" is not a valid S3 bucket name`);
  return bucket;
}

function keyPrefix(url: string, path: string): string {
  const prefix = path.replace(/\/$/, '');
  if (prefix === '') return '';
  try {
    assertValidKey(prefix);
  } catch (err) {
    throw invalidUrl(url, `the key prefix is not a valid key path (${(err as Error).message})`);
  }
  return `${prefix}/`;
}

function invalidUrl(url: string, reason: string): SluiceError {
  return new SluiceError('INVALID_CONFIG', `invalid store URL ${JSON.stringify(url)}: ${reason}`, {
    storeUrl: url,
  });
}

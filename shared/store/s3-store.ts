/**
 * The object store on S3 (or any S3-compatible service): conditional writes are S3's own
 * `If-None-Match: *` and `If-Match` on PutObject, so every commit is decided by the service.
 *
 * Every request has a connection and a request timeout that fail it (the SDK has none by
 * default). A conditional put is tried again after a transient failure (503 SlowDown, 500,
 * 409 ConditionalRequestConflict, a cut connection) until its deadline; when a try after
 * one whose outcome is unknown finds its condition failed, the object is read back and, if
 * it holds exactly these bytes, the put is settled as this one's (docs/design.md, "The
 * object store"). A directory bucket (S3 Express One Zone) lists in no key order and
 * refuses StartAfter: there the store lists the whole prefix and sorts it itself.
 */

import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { SluiceError } from '../errors.ts';
import { abortedError, isAbortError, throwIfAborted } from './abort.ts';
import { assertValidRange } from './byte-range.ts';
import { pageSizeOf } from './list-options.ts';
import { assertValidKey, assertValidPrefix, compareKeys } from './object-key.ts';
import type {
  ByteRange,
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  PutOptions,
  StoredObject,
} from './object-store.ts';

export interface S3StoreOptions {
  bucket: string;
  /** Prefix of every key in the bucket: '' or ending in '/'. */
  prefix?: string;
  endpoint?: string;
  region: string;
  forcePathStyle?: boolean;
  /** Omitted: the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** A connection not made, or an answer not complete, in this long fails the request. */
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxSockets?: number;
  /** How long a conditional put is tried again after transient failures. */
  conditionalDeadlineMs?: number;
  /** The bucket lists in no key order and refuses StartAfter (a directory bucket). */
  unorderedListing?: boolean;
}

const DEFAULTS = {
  connectTimeoutMs: 3_000,
  requestTimeoutMs: 30_000,
  maxSockets: 256,
  conditionalDeadlineMs: 10_000,
};
/** Backoff between tries of a conditional put: doubling from the base, capped, with full jitter. */
const RETRY_BASE_MS = 50;
const RETRY_CAP_MS = 1_000;

/** ListObjectsV2 returns at most this many keys per page. */
const MAX_PAGE_SIZE = 1000;

export class S3Store implements ObjectStore {
  readonly url: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly client: S3Client;
  /**
   * Conditional puts are sent once per try by the SDK: its own retry of a put whose answer
   * was lost would find the object it had just written and report a false conflict. The
   * store retries them itself, and settles such a conflict by reading back (`write`).
   */
  private readonly conditionalClient: S3Client;
  private readonly conditionalDeadlineMs: number;
  private readonly unorderedListing: boolean;

  constructor(options: S3StoreOptions) {
    const prefix = options.prefix ?? '';
    if (prefix !== '' && !prefix.endsWith('/')) {
      throw new SluiceError('INVALID_CONFIG', `S3 key prefix ${JSON.stringify(prefix)} must end with "/"`, {
        prefix,
      });
    }
    this.bucket = options.bucket;
    this.prefix = prefix;
    this.url = `s3://${options.bucket}/${prefix}`;
    this.conditionalDeadlineMs = options.conditionalDeadlineMs ?? DEFAULTS.conditionalDeadlineMs;
    this.unorderedListing = options.unorderedListing ?? false;
    const agent = { keepAlive: true, maxSockets: options.maxSockets ?? DEFAULTS.maxSockets };
    const config: S3ClientConfig = {
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle ?? false,
      credentials: options.credentials,
      // Buffer bodies with no flexible checksum: S3-compatible servers store aws-chunked framing verbatim.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        requestTimeout: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
        // Without it a request timeout only logs a warning and the request goes on waiting.
        throwOnRequestTimeout: true,
        httpAgent: agent,
        httpsAgent: agent,
      },
    };
    this.client = new S3Client(config);
    this.conditionalClient = new S3Client({ ...config, maxAttempts: 1 });
  }

  async get(key: string, options: GetOptions = {}): Promise<StoredObject | null> {
    assertValidKey(key);
    const { range, signal } = options;
    if (range) assertValidRange(range);
    throwIfAborted(signal, 'get');
    // HTTP cannot ask for zero bytes, and S3 answers a range starting past the end with
    // 416: both read as an empty body, as in the file store.
    if (range && range.end === range.start) return this.emptyRead(key, signal);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Range: rangeHeader(range) }),
        sendOptions(signal),
      );
      const body = (await out.Body?.transformToByteArray()) ?? new Uint8Array(0);
      const size = totalSize(out.ContentRange) ?? out.ContentLength ?? body.byteLength;
      return {
        body,
        meta: { key, size, etag: unquote(out.ETag), lastModified: out.LastModified ?? new Date(0) },
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      if (statusOf(err) === 416) return this.emptyRead(key, signal);
      throw storeError(err, 'get', key);
    }
  }

  async head(key: string, options: OpOptions = {}): Promise<ObjectMeta | null> {
    assertValidKey(key);
    throwIfAborted(options.signal, 'head');
    try {
      const command = new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key });
      const out = await this.client.send(command, sendOptions(options.signal));
      return {
        key,
        size: out.ContentLength ?? 0,
        etag: unquote(out.ETag),
        lastModified: out.LastModified ?? new Date(0),
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw storeError(err, 'head', key);
    }
  }

  put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectMeta> {
    return this.write('put', this.client, key, body, {}, options.signal);
  }

  putIfAbsent(key: string, body: Uint8Array, options: OpOptions = {}): Promise<ObjectMeta> {
    return this.write('putIfAbsent', this.conditionalClient, key, body, { IfNoneMatch: '*' }, options.signal);
  }

  putIfMatch(key: string, body: Uint8Array, etag: string, options: OpOptions = {}): Promise<ObjectMeta> {
    return this.write(
      'putIfMatch',
      this.conditionalClient,
      key,
      body,
      { IfMatch: `"${etag}"` },
      options.signal,
    );
  }

  list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta[]> {
    return this.pages(prefix, options);
  }

  async delete(key: string, options: OpOptions = {}): Promise<void> {
    assertValidKey(key);
    throwIfAborted(options.signal, 'delete');
    try {
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }),
        sendOptions(options.signal),
      );
    } catch (err) {
      throw storeError(err, 'delete', key);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
    this.conditionalClient.destroy();
  }

  /**
   * One put. A conditional one is tried again after a transient failure until the
   * deadline; a condition found failed after a try whose outcome is unknown is settled by
   * reading the object back: these very bytes there mean an earlier try landed.
   */
  private async write(
    op: string,
    client: S3Client,
    key: string,
    body: Uint8Array,
    condition: { IfNoneMatch?: string; IfMatch?: string },
    signal: AbortSignal | undefined,
  ): Promise<ObjectMeta> {
    assertValidKey(key);
    const conditional = client === this.conditionalClient;
    const deadline = Date.now() + this.conditionalDeadlineMs;
    let unknownOutcome = false;
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal, op);
      try {
        return await this.putOnce(client, key, body, condition, signal);
      } catch (err) {
        const error = storeError(err, op, key);
        if (!conditional) throw error;
        if (error.code === 'PRECONDITION_FAILED') {
          if (unknownOutcome && (await this.holds(key, body, signal))) return this.settled(key, body, signal);
          throw error;
        }
        if (!isTransient(err) || Date.now() >= deadline) throw error;
        unknownOutcome ||= outcomeUnknown(err);
        await sleep(Math.random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1)), undefined, {
          signal,
        }).catch((abort: unknown) => {
          throw abortedError(op, abort);
        });
      }
    }
  }

  private async putOnce(
    client: S3Client,
    key: string,
    body: Uint8Array,
    condition: { IfNoneMatch?: string; IfMatch?: string },
    signal: AbortSignal | undefined,
  ): Promise<ObjectMeta> {
    const out = await client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.prefix + key,
        Body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        ...condition,
      }),
      sendOptions(signal),
    );
    // PutObject does not return the modification time; the answer arrives right after it.
    return { key, size: body.byteLength, etag: unquote(out.ETag), lastModified: new Date() };
  }

  /** Whether the object holds exactly `body` (ETags cannot tell: not MD5s under KMS or on Express). */
  private async holds(key: string, body: Uint8Array, signal: AbortSignal | undefined): Promise<boolean> {
    const found = await this.get(key, { signal });
    return found !== null && Buffer.compare(found.body, body) === 0;
  }

  private async settled(key: string, body: Uint8Array, signal: AbortSignal | undefined): Promise<ObjectMeta> {
    const meta = await this.head(key, { signal });
    return meta ?? { key, size: body.byteLength, etag: '', lastModified: new Date() };
  }

  private async emptyRead(key: string, signal: AbortSignal | undefined): Promise<StoredObject | null> {
    const meta = await this.head(key, { signal });
    return meta && { body: new Uint8Array(0), meta };
  }

  private async *pages(prefix: string, options: ListOptions): AsyncGenerator<ObjectMeta[]> {
    assertValidPrefix(prefix);
    const pageSize = pageSizeOf(options, MAX_PAGE_SIZE);
    if (this.unorderedListing) {
      yield* this.sortedPages(prefix, options, pageSize);
      return;
    }
    const startAfter = options.startAfter === undefined ? undefined : this.prefix + options.startAfter;
    yield* this.servedPages(prefix, pageSize, startAfter, options.signal);
  }

  private async *servedPages(
    prefix: string,
    pageSize: number,
    startAfter: string | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ObjectMeta[]> {
    let token: string | undefined;
    do {
      throwIfAborted(signal, 'list');
      const out = await this.listPage(prefix, pageSize, token, startAfter, signal);
      const page = (out.Contents ?? []).map(
        (object): ObjectMeta => ({
          key: (object.Key ?? '').slice(this.prefix.length),
          size: object.Size ?? 0,
          etag: unquote(object.ETag),
          lastModified: object.LastModified ?? new Date(0),
        }),
      );
      if (page.length > 0) yield page;
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  /** The whole prefix listed, then filtered and sorted here: a directory bucket does neither. */
  private async *sortedPages(
    prefix: string,
    options: ListOptions,
    pageSize: number,
  ): AsyncGenerator<ObjectMeta[]> {
    const all: ObjectMeta[] = [];
    for await (const page of this.servedPages(prefix, MAX_PAGE_SIZE, undefined, options.signal))
      all.push(...page);
    const after = options.startAfter;
    const sorted = all
      .filter((meta) => after === undefined || compareKeys(meta.key, after) > 0)
      .sort((a, b) => compareKeys(a.key, b.key));
    for (let at = 0; at < sorted.length; at += pageSize) yield sorted.slice(at, at + pageSize);
  }

  private async listPage(
    prefix: string,
    pageSize: number,
    token: string | undefined,
    startAfter: string | undefined,
    signal: AbortSignal | undefined,
  ) {
    try {
      return await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          MaxKeys: pageSize,
          ContinuationToken: token,
          StartAfter: token === undefined ? startAfter : undefined,
        }),
        sendOptions(signal),
      );
    } catch (err) {
      throw storeError(err, 'list', prefix);
    }
  }
}

function rangeHeader(range: ByteRange | undefined): string | undefined {
  if (!range || (range.start === 0 && range.end === undefined)) return undefined;
  return `bytes=${range.start}-${range.end === undefined ? '' : range.end - 1}`;
}

/** The object's size from `Content-Range: bytes 0-4/10`. */
function totalSize(contentRange: string | undefined): number | undefined {
  const total = contentRange?.match(/\/(\d+)$/)?.[1];
  return total === undefined ? undefined : Number(total);
}

/** S3 quotes etags in headers and listings; the store hands them out bare. */
function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"(.*)"$/, '$1');
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('$metadata' in err)) return undefined;
  const metadata = err.$metadata as { httpStatusCode?: number } | undefined;
  return metadata?.httpStatusCode;
}

function nameOf(err: unknown): string {
  return err instanceof Error ? err.name : '';
}

/** Failures a later try can clear: S3's 5xx, 409 ConditionalRequestConflict, a timeout or a cut connection. */
function isTransient(err: unknown): boolean {
  const status = statusOf(err);
  if (status !== undefined) return status >= 500 || status === 409;
  return !isAbortError(err);
}

/** A try whose write may have landed: no answer came, or a 500 (S3 may have applied it). */
function outcomeUnknown(err: unknown): boolean {
  const status = statusOf(err);
  return status === undefined || status === 500;
}

function isNotFound(err: unknown): boolean {
  return nameOf(err) === 'NoSuchKey' || nameOf(err) === 'NotFound';
}

function storeError(err: unknown, op: string, key: string): SluiceError {
  if (err instanceof SluiceError) return err;
  if (isAbortError(err)) return abortedError(op, err);
  const status = statusOf(err);
  const s3Code = nameOf(err);
  const details = { op, key, status, s3Code };
  const message = err instanceof Error ? err.message : String(err);
  // S3 answers If-Match on a missing key with 404 NoSuchKey: for the caller, the same failed precondition.
  if (status === 412 || (op === 'putIfMatch' && s3Code === 'NoSuchKey')) {
    return new SluiceError('PRECONDITION_FAILED', `S3 ${op} ${key}: precondition failed`, details, {
      cause: err,
    });
  }
  if (status === 409) {
    return new SluiceError('STORE_CONFLICT', `S3 ${op} ${key}: concurrent conflicting write`, details, {
      cause: err,
    });
  }
  if (s3Code === 'NoSuchBucket') {
    return new SluiceError('INVALID_CONFIG', `S3 bucket does not exist: ${message}`, details, { cause: err });
  }
  return new SluiceError('STORE_UNAVAILABLE', `S3 ${op} ${key} failed: ${message}`, details, { cause: err });
}

/**
 * The SDK's options for a request under `signal`. One signal often covers many requests at
 * once (a flush reads a generation's entries 32 at a time), each listening on it until it
 * ends: past ten, Node would warn of a leak that is none.
 */
function sendOptions(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  if (signal) setMaxListeners(0, signal);
  return { abortSignal: signal };
}

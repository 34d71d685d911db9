/**
 * The object store on S3 (or any S3-compatible service): conditional writes are S3's own
 * `If-None-Match: *` and `If-Match` on PutObject, so every commit is decided by the service.
 */
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
import { assertValidKey, assertValidPrefix } from './object-key.ts';
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
}

/** ListObjectsV2 returns at most this many keys per page. */
const MAX_PAGE_SIZE = 1000;

export class S3Store implements ObjectStore {
  readonly url: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly client: S3Client;
  /**
   * Conditional puts are sent once. The SDK would retry one whose answer was lost, find the
   * object it had just written and report a false conflict; sent once, a lost answer is
   * STORE_UNAVAILABLE, which callers settle by re-reading (I13).
   */
  private readonly conditionalClient: S3Client;

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
    const config: S3ClientConfig = {
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle ?? false,
      credentials: options.credentials,
      // Buffer bodies with no flexible checksum: S3-compatible servers store aws-chunked framing verbatim.
      requestChecksumCalculation: 'WHEN_REQUIRED',
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
        { abortSignal: signal },
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
      const out = await this.client.send(command, { abortSignal: options.signal });
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
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }), {
        abortSignal: options.signal,
      });
    } catch (err) {
      throw storeError(err, 'delete', key);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
    this.conditionalClient.destroy();
  }

  private async write(
    op: string,
    client: S3Client,
    key: string,
    body: Uint8Array,
    condition: { IfNoneMatch?: string; IfMatch?: string },
    signal: AbortSignal | undefined,
  ): Promise<ObjectMeta> {
    assertValidKey(key);
    throwIfAborted(signal, op);
    try {
      const out = await client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.prefix + key,
          Body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
          ...condition,
        }),
        { abortSignal: signal },
      );
      // PutObject does not return the modification time; the answer arrives right after it.
      return { key, size: body.byteLength, etag: unquote(out.ETag), lastModified: new Date() };
    } catch (err) {
      throw storeError(err, op, key);
    }
  }

  private async emptyRead(key: string, signal: AbortSignal | undefined): Promise<StoredObject | null> {
    const meta = await this.head(key, { signal });
    return meta && { body: new Uint8Array(0), meta };
  }

  private async *pages(prefix: string, options: ListOptions): AsyncGenerator<ObjectMeta[]> {
    assertValidPrefix(prefix);
    const pageSize = pageSizeOf(options, MAX_PAGE_SIZE);
    const startAfter = options.startAfter === undefined ? undefined : this.prefix + options.startAfter;
    let token: string | undefined;
    do {
      throwIfAborted(options.signal, 'list');
      const out = await this.listPage(prefix, pageSize, token, startAfter, options.signal);
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
        { abortSignal: signal },
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

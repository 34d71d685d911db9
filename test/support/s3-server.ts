/**
 * A real S3-protocol server on loopback for the store conformance suite: npm `s3rver`
 * 3.7.1, made faithful where Sluice relies on S3 (REFERENCE.md, "Object storage"):
 *
 * - Conditional PUT. s3rver ignores `If-None-Match`/`If-Match`; here they are checked
 *   and the write applied under a per-key mutex, as S3 serializes writes to one key, and a
 *   failed check answers S3's XML: 412 PreconditionFailed, or 404 NoSuchKey for
 *   `If-Match` on a missing key.
 * - Whole-object writes. s3rver writes in place, so a reader can see a torn object; here
 *   every file of an object is written to a temp file and renamed into place.
 * - ListObjectsV2. s3rver's continuation tokens use DES, which Node >= 17 only has with
 *   `--openssl-legacy-provider`, and its directory walk does not return keys in S3's
 *   byte order; here the listing is served in byte order with plain opaque tokens.
 *
 * Test support only: nothing here is part of Sluice.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import S3rver, { type FilesystemStore, type KoaContext, type KoaMiddleware } from 's3rver';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/** s3rver's built-in account. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
/** s3rver stores object `k` as the file `k._S3rver_object` (plus `.md5` and `metadata.json` siblings). */
const OBJECT_SUFFIX = '._S3rver_object';
const MAX_KEYS = 1000;

export async function startS3Server(bucket = 'sluice-test'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'sluice-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  writeWholeObjects(server.store);
  server.middleware.unshift(s3Semantics(server.store));
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    credentials: CREDENTIALS,
    async stop() {
      server.httpServer.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function s3Semantics(store: FilesystemStore): KoaMiddleware {
  const mutex = new KeyedMutex();
  return async (ctx, next) => {
    const target = parseTarget(ctx.path);
    if (!target) return next();
    if (target.key === '') {
      if (ctx.method === 'GET' && ctx.query['list-type'] === '2')
        return listObjectsV2(ctx, store, target.bucket);
      return next();
    }
    const { bucket, key } = target;
    await mutex.run(`${bucket}/${key}`, async () => {
      if (ctx.method === 'PUT' && !(await preconditionsHold(ctx, store, bucket, key))) return;
      if (ctx.method === 'GET' && ctx.get('range') && (await sizeOf(store, bucket, key)) === 0) {
        // S3 refuses any range of an empty object; s3rver would announce one byte and send none.
        return answerError(ctx, 416, 'InvalidRange', 'The requested range is not satisfiable');
      }
      await next();
    });
  };
}

function parseTarget(path: string): { bucket: string; key: string } | undefined {
  const match = /^\/([^/]+)\/?(.*)$/.exec(path);
  if (!match) return undefined;
  return { bucket: decodeURIComponent(match[1] ?? ''), key: decodeURIComponent(match[2] ?? '') };
}

async function preconditionsHold(ctx: KoaContext, store: FilesystemStore, bucket: string, key: string) {
  const ifNoneMatch = ctx.get('if-none-match');
  const ifMatch = ctx.get('if-match');
  if (!ifNoneMatch && !ifMatch) return true;
  const current = await metadataOf(store, bucket, key);
  const failure = preconditionFailure(ifNoneMatch, ifMatch, current && String(current.etag));
  if (!failure) return true;
  await drain(ctx.req);
  answerError(ctx, failure.status, failure.code, failure.message, { Condition: failure.condition, Key: key });
  return false;
}

function preconditionFailure(ifNoneMatch: string, ifMatch: string, currentEtag: string | undefined) {
  const failed = 'At least one of the pre-conditions you specified did not hold';
  if (ifNoneMatch === '*' && currentEtag !== undefined) {
    return { status: 412, code: 'PreconditionFailed', message: failed, condition: 'If-None-Match' };
  }
  if (!ifMatch) return undefined;
  if (currentEtag === undefined) {
    return {
      status: 404,
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
      condition: 'If-Match',
    };
  }
  if (unquote(ifMatch) !== unquote(currentEtag)) {
    return { status: 412, code: 'PreconditionFailed', message: failed, condition: 'If-Match' };
  }
  return undefined;
}

async function listObjectsV2(ctx: KoaContext, store: FilesystemStore, bucket: string): Promise<void> {
  if (!(await store.getBucket(bucket))) {
    return answerError(ctx, 404, 'NoSuchBucket', 'The specified bucket does not exist', {
      BucketName: bucket,
    });
  }
  if (ctx.query.delimiter) {
    return answerError(ctx, 501, 'NotImplemented', 'This test server does not list with a delimiter');
  }
  const prefix = queryString(ctx, 'prefix') ?? '';
  const token = queryString(ctx, 'continuation-token');
  const startAfter = token === undefined ? (queryString(ctx, 'start-after') ?? '') : decodeToken(token);
  const maxKeys = Math.min(MAX_KEYS, Number(queryString(ctx, 'max-keys') ?? MAX_KEYS));
  const keys = (await objectKeys(store.getBucketPath(bucket)))
    .filter((key) => key.startsWith(prefix) && compareBytes(key, startAfter) > 0)
    .sort(compareBytes);
  const contents: string[] = [];
  let lastKey: string | undefined;
  let truncated = false;
  for (const key of keys) {
    if (contents.length === maxKeys) {
      truncated = true;
      break;
    }
    const metadata = await metadataOf(store, bucket, key);
    if (!metadata) continue;
    lastKey = key;
    contents.push(
      element('Contents', [
        element('Key', key),
        element('LastModified', new Date(String(metadata['last-modified'])).toISOString()),
        element('ETag', String(metadata.etag)),
        element('Size', String(metadata['content-length'])),
        element('StorageClass', 'STANDARD'),
      ]),
    );
  }
  ctx.type = 'application/xml';
  ctx.body = xmlDocument(
    'ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"',
    'ListBucketResult',
    [
      element('Name', bucket),
      element('Prefix', prefix),
      token === undefined ? optionalElement('StartAfter', startAfter) : element('ContinuationToken', token),
      element('KeyCount', String(contents.length)),
      element('MaxKeys', String(maxKeys)),
      element('IsTruncated', String(truncated)),
      truncated ? optionalElement('NextContinuationToken', encodeToken(lastKey ?? startAfter)) : '',
      ...contents,
    ],
  );
}

/** Every object key in the bucket directory, found by walking it (order is not S3's). */
async function objectKeys(bucketPath: string): Promise<string[]> {
  const keys: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith(OBJECT_SUFFIX)) {
        keys.push(relative(bucketPath, path).split(sep).join('/').slice(0, -OBJECT_SUFFIX.length));
      }
    }
  };
  await walk(bucketPath);
  return keys;
}

/** Replaces s3rver's in-place writes with temp-file-and-rename ones, and keeps directories on delete. */
function writeWholeObjects(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const content = Buffer.isBuffer(object.content) ? object.content : await readAll(object.content);
    const md5 = createHash('md5').update(content).digest('hex');
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    const kept = Object.entries(object.metadata).filter(
      ([name]) => !['last-modified', 'etag', 'content-length'].includes(name),
    );
    await mkdir(dirname(objectPath), { recursive: true });
    await replaceFile(
      store.getResourcePath(object.bucket, object.key, 'metadata.json'),
      JSON.stringify(Object.fromEntries(kept)),
    );
    await replaceFile(`${objectPath}.md5`, md5);
    await replaceFile(objectPath, content);
    return { size: content.length, md5 };
  };
  // s3rver also removes directories left empty, which races with a write into the same directory.
  store.deleteObject = async (bucket, key) => {
    for (const resource of ['object', 'object.md5', 'metadata.json']) {
      await unlink(store.getResourcePath(bucket, key, resource)).catch(() => undefined);
    }
  };
}

async function replaceFile(path: string, content: string | Buffer): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, content);
  await rename(temp, path);
}

async function metadataOf(store: FilesystemStore, bucket: string, key: string) {
  return store.getMetadata(bucket, key).catch(() => undefined);
}

async function sizeOf(store: FilesystemStore, bucket: string, key: string): Promise<number | undefined> {
  const metadata = await metadataOf(store, bucket, key);
  return metadata && Number(metadata['content-length']);
}

function answerError(
  ctx: KoaContext,
  status: number,
  code: string,
  message: string,
  detail: Record<string, string> = {},
): void {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = xmlDocument('Error', 'Error', [
    element('Code', code),
    element('Message', message),
    ...Object.entries(detail).map(([name, value]) => element(name, value)),
    element('RequestId', randomUUID()),
  ]);
}

function xmlDocument(open: string, close: string, children: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${open}>${children.join('')}</${close}>`;
}

function element(name: string, content: string | string[]): string {
  const inner = Array.isArray(content) ? content.join('') : escapeXml(content);
  return `<${name}>${inner}</${name}>`;
}

function optionalElement(name: string, content: string): string {
  return content === '' ? '' : element(name, content);
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function queryString(ctx: KoaContext, name: string): string | undefined {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[0] : value;
}

function encodeToken(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

function decodeToken(token: string): string {
  return Buffer.from(token, 'base64url').toString('utf8');
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function unquote(etag: string): string {
  return etag.replace(/^"(.*)"$/, '$1');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function drain(stream: Readable): Promise<void> {
  stream.resume();
  await finished(stream);
}

/** Runs critical sections one at a time per key, in arrival order. */
class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run(key: string, critical: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = () => {};
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => turn);
    this.tails.set(key, tail);
    await previous;
    try {
      await critical();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

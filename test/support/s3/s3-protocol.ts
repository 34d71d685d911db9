/**
 * The S3 test server's HTTP side: path-style requests (`/{bucket}/{key}`) of the calls
 * Sluice's store and Lance make — GetObject (ranged), HeadObject, PutObject (plain,
 * If-None-Match, If-Match), CopyObject, DeleteObject, DeleteObjects, ListObjectsV2 and
 * multipart uploads — answered with S3's status codes, headers and XML. Any signature is
 * accepted without being checked. Every request first meets the fault script.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults, S3Fault, S3Op } from './fault-script.ts';
import type { Conditions, ObjectSpace, StoredObject } from './object-space.ts';

const MAX_KEYS = 1000;

interface Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface ProtocolOptions {
  space: ObjectSpace;
  faults: Faults;
  /** Express mode refuses StartAfter, as directory buckets do. */
  express: boolean;
  /** Told of every request of a known bucket as it arrives, before the fault script meets it (a list names its prefix). */
  onRequest?(op: S3Op, bucket: string, key: string): void;
}

export async function handle(
  options: ProtocolOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://s3.test');
  const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
  const request: Request = {
    method: req.method ?? 'GET',
    bucket: decodeURIComponent(bucket),
    key: rest.map(decodeURIComponent).join('/'),
    query: url.searchParams,
    headers: req.headers,
    body: decodeBody(req.headers, await readBody(req)),
  };
  if (!options.space.hasBucket(request.bucket)) return error(res, 404, 'NoSuchBucket', request.bucket);
  const op = opOf(request);
  const key = request.key || (request.query.get('prefix') ?? '');
  options.onRequest?.(op, request.bucket, key);
  const decision = options.faults.decide(op, key);
  if (decision.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
  if (decision.fault === 'reset') return void req.socket.destroy();
  if (decision.fault && decision.fault !== 'lostAnswer') return failed(res, decision.fault);
  const answer = route(options, request);
  if (decision.fault === 'lostAnswer') return void req.socket.destroy();
  answer(res);
}

type Answer = (res: ServerResponse) => void;

function route(options: ProtocolOptions, r: Request): Answer {
  const { space } = options;
  if (r.key === '') {
    if (r.method === 'POST' && r.query.has('delete')) return deleteMany(space, r);
    if (r.method === 'GET' && r.query.has('location')) return xml(200, '<LocationConstraint/>');
    if (r.method === 'GET') return list(options, r);
    return (res) => res.writeHead(200).end();
  }
  if (r.query.has('uploads') && r.method === 'POST') return createUpload(space, r);
  if (r.query.has('uploadId')) return multipart(space, r);
  switch (r.method) {
    case 'GET':
      return get(space, r, true);
    case 'HEAD':
      return get(space, r, false);
    case 'PUT':
      return r.headers['x-amz-copy-source'] ? copy(space, r) : put(space, r);
    case 'DELETE':
      space.delete(r.bucket, r.key);
      return (res) => res.writeHead(204).end();
    default:
      return (res) => error(res, 405, 'MethodNotAllowed', r.method);
  }
}

function opOf(r: Request): S3Op {
  if (r.key === '') return r.method === 'POST' ? 'deleteMany' : 'list';
  if (r.query.has('uploads') || r.query.has('uploadId')) return 'multipart';
  if (r.method === 'GET') return 'get';
  if (r.method === 'HEAD') return 'head';
  if (r.method === 'DELETE') return 'delete';
  if (r.headers['x-amz-copy-source']) return 'copy';
  if (r.headers['if-none-match']) return 'putIfAbsent';
  return r.headers['if-match'] ? 'putIfMatch' : 'put';
}

function conditionsOf(r: Request): Conditions {
  const header = (name: string) => {
    const value = r.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return { ifNoneMatch: header('if-none-match'), ifMatch: header('if-match') };
}

function contentTypeOf(r: Request): string {
  return r.headers['content-type'] ?? 'application/octet-stream';
}

function put(space: ObjectSpace, r: Request): Answer {
  const outcome = space.put(r.bucket, r.key, r.body, conditionsOf(r), contentTypeOf(r));
  if (!outcome.ok) return (res) => error(res, outcome.status, outcome.code, r.key);
  return (res) => res.writeHead(200, { etag: outcome.object.etag }).end();
}

function copy(space: ObjectSpace, r: Request): Answer {
  const source = decodeURIComponent(String(r.headers['x-amz-copy-source']).replace(/^\//, ''));
  const [bucket = '', ...rest] = source.split('/');
  const from = space.hasBucket(bucket) ? space.get(bucket, rest.join('/')) : null;
  if (!from) return (res) => error(res, 404, 'NoSuchKey', source);
  const outcome = space.put(r.bucket, r.key, from.body, conditionsOf(r), from.contentType);
  if (!outcome.ok) return (res) => error(res, outcome.status, outcome.code, r.key);
  return xml(
    200,
    `<CopyObjectResult><ETag>${xmlEscape(outcome.object.etag)}</ETag><LastModified>${outcome.object.lastModified.toISOString()}</LastModified></CopyObjectResult>`,
  );
}

function get(space: ObjectSpace, r: Request, withBody: boolean): Answer {
  const object = space.get(r.bucket, r.key);
  if (!object) {
    return withBody ? (res) => error(res, 404, 'NoSuchKey', r.key) : (res) => res.writeHead(404).end();
  }
  const range = rangeOf(r.headers.range, object.body.length);
  if (range === 'unsatisfiable') {
    return (res) => error(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
  }
  const body = range ? object.body.subarray(range.start, range.end + 1) : object.body;
  const headers: Record<string, string | number> = {
    ...objectHeaders(object),
    'content-length': body.length,
    'accept-ranges': 'bytes',
  };
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${object.body.length}`;
  return (res) => res.writeHead(range ? 206 : 200, headers).end(withBody ? body : undefined);
}

/** `bytes=a-b`, `bytes=a-` and `bytes=-n`; null for no (or an unparsable) range, as S3 then sends it all. */
function rangeOf(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  if (start >= size) return 'unsatisfiable';
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return end < start ? null : { start, end };
}

function objectHeaders(object: StoredObject): Record<string, string> {
  return {
    etag: object.etag,
    'last-modified': object.lastModified.toUTCString(),
    'content-type': object.contentType,
  };
}

function list(options: ProtocolOptions, r: Request): Answer {
  const startAfter = r.query.get('start-after') ?? '';
  if (options.express && startAfter !== '') {
    return (res) => error(res, 400, 'InvalidArgument', 'StartAfter is not supported by directory buckets');
  }
  const token = r.query.get('continuation-token');
  const page = options.space.list(r.bucket, {
    prefix: r.query.get('prefix') ?? '',
    delimiter: r.query.get('delimiter') ?? '',
    startAfter,
    token: token === null ? null : Buffer.from(token, 'base64url').toString('utf8'),
    maxKeys: Math.min(MAX_KEYS, Number(r.query.get('max-keys') ?? MAX_KEYS)),
  });
  const urlEncoded = r.query.get('encoding-type') === 'url';
  const text = (value: string) =>
    xmlEscape(urlEncoded ? encodeURIComponent(value).replaceAll('%2F', '/') : value);
  const contents = page.contents
    .map(
      ({ key, object }) =>
        `<Contents><Key>${text(key)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(object.etag)}</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    )
    .join('');
  const prefixes = page.commonPrefixes
    .map((p) => `<CommonPrefixes><Prefix>${text(p)}</Prefix></CommonPrefixes>`)
    .join('');
  const next =
    page.nextToken === null
      ? ''
      : `<NextContinuationToken>${Buffer.from(page.nextToken).toString('base64url')}</NextContinuationToken>`;
  return xml(
    200,
    `<ListBucketResult><Name>${xmlEscape(r.bucket)}</Name><Prefix>${text(r.query.get('prefix') ?? '')}</Prefix>` +
      `<KeyCount>${page.contents.length + page.commonPrefixes.length}</KeyCount><MaxKeys>${MAX_KEYS}</MaxKeys>` +
      `${urlEncoded ? '<EncodingType>url</EncodingType>' : ''}<IsTruncated>${page.truncated}</IsTruncated>${next}${contents}${prefixes}</ListBucketResult>`,
  );
}

function deleteMany(space: ObjectSpace, r: Request): Answer {
  const keys = [...r.body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => xmlUnescape(m[1]!));
  for (const key of keys) space.delete(r.bucket, key);
  const deleted = keys.map((key) => `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`).join('');
  return xml(200, `<DeleteResult>${deleted}</DeleteResult>`);
}

function createUpload(space: ObjectSpace, r: Request): Answer {
  const id = space.createUpload(r.bucket, r.key);
  return xml(
    200,
    `<InitiateMultipartUploadResult><Bucket>${xmlEscape(r.bucket)}</Bucket><Key>${xmlEscape(r.key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
  );
}

function multipart(space: ObjectSpace, r: Request): Answer {
  const id = r.query.get('uploadId')!;
  if (r.method === 'PUT') {
    const etag = space.uploadPart(id, Number(r.query.get('partNumber')), r.body);
    if (!etag) return (res) => error(res, 404, 'NoSuchUpload', id);
    return (res) => res.writeHead(200, { etag }).end();
  }
  if (r.method === 'DELETE') {
    space.abortUpload(id);
    return (res) => res.writeHead(204).end();
  }
  const parts = [...r.body.toString('utf8').matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) =>
    Number(m[1]),
  );
  const outcome = space.completeUpload(id, parts, conditionsOf(r), contentTypeOf(r));
  if (!outcome) return (res) => error(res, 400, 'InvalidPart', id);
  if (!outcome.ok) return (res) => error(res, outcome.status, outcome.code, r.key);
  return xml(
    200,
    `<CompleteMultipartUploadResult><Bucket>${xmlEscape(r.bucket)}</Bucket><Key>${xmlEscape(r.key)}</Key><ETag>${xmlEscape(outcome.object.etag)}</ETag></CompleteMultipartUploadResult>`,
  );
}

const FAILURES: Record<Exclude<S3Fault, 'lostAnswer' | 'reset'>, [number, string, string]> = {
  slowDown: [503, 'SlowDown', 'Please reduce your request rate.'],
  internalError: [500, 'InternalError', 'We encountered an internal error. Please try again.'],
  conditionalConflict: [
    409,
    'ConditionalRequestConflict',
    'A conflicting operation occurred. If using PutObject you can retry the request.',
  ],
};

function failed(res: ServerResponse, fault: keyof typeof FAILURES): void {
  const [status, code, message] = FAILURES[fault];
  error(res, status, code, message);
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  xml(status, `<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`)(res);
}

function xml(status: number, body: string): Answer {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  return (res) =>
    res
      .writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) })
      .end(text);
}

function xmlEscape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

function xmlUnescape(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name]!,
  );
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The payload of an `aws-chunked` body (`size;chunk-signature=…\r\n data \r\n … 0\r\n trailers`), else the body. */
function decodeBody(headers: IncomingMessage['headers'], body: Buffer): Buffer {
  const chunked =
    String(headers['content-encoding'] ?? '').includes('aws-chunked') ||
    String(headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
  if (!chunked) return body;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

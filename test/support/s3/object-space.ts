/**
 * The S3 test server's objects, in memory: buckets of whole objects, written and read
 * atomically. A conditional write is decided in one synchronous step once its body has
 * arrived — no await between the check and the set — so of racing writers the first to
 * finish wins and the rest get 412, as on S3. Multipart uploads complete the same way.
 */
import { createHash, randomUUID } from 'node:crypto';

export interface StoredObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
  contentType: string;
}

export interface Conditions {
  /** `*`: only when absent. */
  ifNoneMatch?: string;
  /** Only when the object exists with this ETag. */
  ifMatch?: string;
}

export type WriteOutcome =
  | { ok: true; object: StoredObject }
  | { ok: false; status: 404 | 412; code: 'NoSuchKey' | 'PreconditionFailed' };

export interface ListPage {
  contents: Array<{ key: string; object: StoredObject }>;
  commonPrefixes: string[];
  truncated: boolean;
  nextToken: string | null;
}

export interface SpaceOptions {
  /** S3 Express directory buckets: ETags are not MD5s and listings come in no key order. */
  express: boolean;
  /** A store that takes If-None-Match and If-Match and ignores them (GCS's XML API, B2). */
  ignoresConditions: boolean;
}

interface Upload {
  bucket: string;
  key: string;
  parts: Map<number, { body: Buffer; etag: string }>;
}

export class ObjectSpace {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly uploads = new Map<string, Upload>();

  constructor(
    bucketNames: readonly string[],
    private readonly options: SpaceOptions,
  ) {
    for (const name of bucketNames) this.buckets.set(name, new Map());
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  get(bucket: string, key: string): StoredObject | null {
    return this.bucket(bucket).get(key) ?? null;
  }

  put(bucket: string, key: string, body: Buffer, conditions: Conditions, contentType: string): WriteOutcome {
    const objects = this.bucket(bucket);
    const refused = this.refusal(objects.get(key), conditions);
    if (refused) return refused;
    const object: StoredObject = { body, etag: this.etagOf(body), lastModified: new Date(), contentType };
    objects.set(key, object);
    return { ok: true, object };
  }

  delete(bucket: string, key: string): void {
    this.bucket(bucket).delete(key);
  }

  /** Drops every object under `prefix` at once, as no S3 call does: a bench's cleanup between cases. */
  purge(bucket: string, prefix: string): number {
    const objects = this.bucket(bucket);
    let purged = 0;
    for (const key of objects.keys()) {
      if (!key.startsWith(prefix)) continue;
      objects.delete(key);
      purged += 1;
    }
    return purged;
  }

  createUpload(bucket: string, key: string): string {
    this.bucket(bucket);
    const id = randomUUID();
    this.uploads.set(id, { bucket, key, parts: new Map() });
    return id;
  }

  uploadPart(id: string, part: number, body: Buffer): string | null {
    const upload = this.uploads.get(id);
    if (!upload) return null;
    const etag = `"${createHash('md5').update(body).digest('hex')}"`;
    upload.parts.set(part, { body, etag });
    return etag;
  }

  /** Null: no such upload, or a part it names was never uploaded. */
  completeUpload(id: string, parts: readonly number[], conditions: Conditions, contentType: string) {
    const upload = this.uploads.get(id);
    if (!upload || parts.some((n) => !upload.parts.has(n))) return null;
    const chunks = parts.map((n) => upload.parts.get(n)!);
    const objects = this.bucket(upload.bucket);
    const refused = this.refusal(objects.get(upload.key), conditions);
    if (refused) return refused;
    const digest = createHash('md5');
    for (const chunk of chunks) digest.update(Buffer.from(chunk.etag.slice(1, -1), 'hex'));
    const etag = this.options.express
      ? this.etagOf(Buffer.alloc(0))
      : `"${digest.digest('hex')}-${parts.length}"`;
    const object: StoredObject = {
      body: Buffer.concat(chunks.map((c) => c.body)),
      etag,
      lastModified: new Date(),
      contentType,
    };
    objects.set(upload.key, object);
    this.uploads.delete(id);
    return { ok: true as const, object };
  }

  abortUpload(id: string): void {
    this.uploads.delete(id);
  }

  /**
   * ListObjectsV2: keys under `prefix` in UTF-8 byte order (no order at all in express
   * mode), rolled up at `delimiter`, from after `startAfter` or the continuation token.
   */
  list(
    bucket: string,
    query: { prefix: string; delimiter: string; startAfter: string; token: string | null; maxKeys: number },
  ): ListPage {
    const after = this.options.express ? '' : (query.token ?? query.startAfter);
    const keys = [...this.bucket(bucket).keys()].filter(
      (k) => k.startsWith(query.prefix) && byBytes(k, after) > 0,
    );
    const ordered = this.options.express ? keys.sort(byScramble) : keys.sort(byBytes);
    // A common prefix stands for its keys: the token after it is its last key.
    const entries: Array<{ key: string; prefix?: string; last: string }> = [];
    const rolled = new Map<string, { key: string; prefix?: string; last: string }>();
    for (const key of ordered) {
      const rest = key.slice(query.prefix.length);
      const cut = query.delimiter ? rest.indexOf(query.delimiter) : -1;
      if (cut < 0) {
        entries.push({ key, last: key });
        continue;
      }
      const prefix = query.prefix + rest.slice(0, cut + query.delimiter.length);
      const known = rolled.get(prefix);
      if (known) known.last = key;
      else {
        const entry = { key: prefix, prefix, last: key };
        rolled.set(prefix, entry);
        entries.push(entry);
      }
    }
    const start = this.options.express ? Number(query.token ?? 0) : 0;
    const page = entries.slice(start, start + query.maxKeys);
    const truncated = start + page.length < entries.length;
    const objects = this.bucket(bucket);
    return {
      contents: page.filter((e) => !e.prefix).map((e) => ({ key: e.key, object: objects.get(e.key)! })),
      commonPrefixes: page.flatMap((e) => (e.prefix ? [e.prefix] : [])),
      truncated,
      nextToken: truncated ? (this.options.express ? String(start + page.length) : page.at(-1)!.last) : null,
    };
  }

  private bucket(name: string): Map<string, StoredObject> {
    const objects = this.buckets.get(name);
    if (!objects) throw new Error(`no bucket ${name}`);
    return objects;
  }

  private refusal(existing: StoredObject | undefined, conditions: Conditions): WriteOutcome | null {
    if (this.options.ignoresConditions) return null;
    if (conditions.ifNoneMatch === '*' && existing) {
      return { ok: false, status: 412, code: 'PreconditionFailed' };
    }
    if (conditions.ifMatch !== undefined) {
      if (!existing) return { ok: false, status: 404, code: 'NoSuchKey' };
      if (existing.etag !== conditions.ifMatch && conditions.ifMatch !== '*') {
        return { ok: false, status: 412, code: 'PreconditionFailed' };
      }
    }
    return null;
  }

  /** An MD5 as S3 Standard has it; an opaque id in express mode, where ETags are not MD5s. */
  private etagOf(body: Buffer): string {
    if (this.options.express) return `"${randomUUID().replaceAll('-', '')}"`;
    return `"${createHash('md5').update(body).digest('hex')}"`;
  }
}

export function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A fixed order that is not key order, as a directory bucket's listing is. */
function byScramble(a: string, b: string): number {
  const hash = (key: string) => createHash('md5').update(key).digest('hex');
  return hash(a).localeCompare(hash(b));
}

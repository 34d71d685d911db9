/**
 * An ObjectStore in memory, for unit tests of code written against the interface. It
 * keeps the contract's semantics, not just its shape: conditional puts are atomic
 * check-and-set (every operation first yields to the event loop, so concurrent callers
 * really interleave, then decides synchronously), conflicts are PRECONDITION_FAILED,
 * listings are in UTF-8 byte order and paged, bodies are copied in and out, and
 * `keys()` shows exactly what was written.
 */
import { SluiceError } from '../../shared/errors.ts';
import type {
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  StoredObject,
} from '../../shared/store/object-store.ts';

const MAX_PAGE_SIZE = 1000;

interface Entry {
  body: Uint8Array;
  meta: ObjectMeta;
}

function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function assertKey(key: string): void {
  const bad =
    key === '' ||
    key.startsWith('/') ||
    key.includes('\0') ||
    key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) throw new SluiceError('INVALID_REQUEST', `invalid object key ${JSON.stringify(key)}`, { key });
}

async function turn(options: OpOptions | undefined): Promise<void> {
  options?.signal?.throwIfAborted();
  await new Promise<void>((resolve) => setImmediate(resolve));
  options?.signal?.throwIfAborted();
}

export class MemoryStore implements ObjectStore {
  readonly url = 'memory://test';
  private readonly objects = new Map<string, Entry>();
  private version = 0;

  /** Every key in the store, in listing order. */
  keys(): string[] {
    return [...this.objects.keys()].sort(compareKeys);
  }

  async get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    assertKey(key);
    await turn(options);
    const entry = this.objects.get(key);
    if (!entry) return null;
    const range = options?.range;
    if (range) {
      const { start, end } = range;
      if (
        !Number.isSafeInteger(start) ||
        start < 0 ||
        (end !== undefined && (!Number.isSafeInteger(end) || end < start))
      ) {
        throw new SluiceError('INVALID_REQUEST', `invalid byte range [${start}, ${end ?? 'end'})`, {
          start,
          end,
        });
      }
    }
    const size = entry.body.length;
    const start = Math.min(range?.start ?? 0, size);
    const end = Math.max(start, Math.min(range?.end ?? size, size));
    return { body: entry.body.slice(start, end), meta: { ...entry.meta } };
  }

  async head(key: string, options?: OpOptions): Promise<ObjectMeta | null> {
    assertKey(key);
    await turn(options);
    const entry = this.objects.get(key);
    return entry ? { ...entry.meta } : null;
  }

  async put(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta> {
    assertKey(key);
    await turn(options);
    return this.write(key, body);
  }

  async putIfAbsent(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta> {
    assertKey(key);
    await turn(options);
    if (this.objects.has(key)) {
      throw new SluiceError('PRECONDITION_FAILED', `object ${key} already exists`, { key });
    }
    return this.write(key, body);
  }

  async putIfMatch(key: string, body: Uint8Array, etag: string, options?: OpOptions): Promise<ObjectMeta> {
    assertKey(key);
    await turn(options);
    const current = this.objects.get(key);
    if (!current || current.meta.etag !== etag) {
      throw new SluiceError('PRECONDITION_FAILED', `object ${key} does not have etag ${etag}`, { key, etag });
    }
    return this.write(key, body);
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta[]> {
    const pageSize = Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new SluiceError('INVALID_REQUEST', `invalid list page size ${options.pageSize}`);
    }
    let after = options.startAfter;
    for (;;) {
      await turn(options);
      const page = this.keys()
        .filter((key) => key.startsWith(prefix) && (after === undefined || compareKeys(key, after) > 0))
        .slice(0, pageSize)
        .map((key) => ({ ...this.objects.get(key)!.meta }));
      if (page.length === 0) return;
      yield page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.key;
    }
  }

  async delete(key: string, options?: OpOptions): Promise<void> {
    assertKey(key);
    await turn(options);
    this.objects.delete(key);
  }

  async close(): Promise<void> {}

  private write(key: string, body: Uint8Array): ObjectMeta {
    this.version++;
    const meta: ObjectMeta = { key, size: body.length, etag: `"m${this.version}"`, lastModified: new Date() };
    this.objects.set(key, { body: body.slice(), meta });
    return { ...meta };
  }
}

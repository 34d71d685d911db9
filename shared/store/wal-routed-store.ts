/**
 * Two stores seen as one: WAL entries (`tables/{t}/shards/{s}/wal/…`, and the table lane's
 * `tables/{t}/wal/…`, docs/table-wal-lane.md) in the WAL's own
 * store — an S3 Express directory bucket, say, for single-digit-ms acks at a quarter of
 * S3 Standard's PUT price — and every other object in the table store
 * (`SLUICE_WAL_STORE_URL`; docs/design.md, "The object store"). Every caller keeps one
 * store and one key layout; a listing whose prefix may hold keys of both is the two
 * listings merged in key order.
 */
import { compareKeys } from './object-key.ts';
import type {
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  PutOptions,
  StagedObject,
  StoredObject,
} from './object-store.ts';

/** The segments of each WAL lane's key prefix (a shard's, a table's); `null` stands for any one segment. */
const WAL_LANES: ReadonlyArray<ReadonlyArray<string | null>> = [
  ['tables', null, 'shards', null, 'wal'],
  ['tables', null, 'wal'],
];

export class WalRoutedStore implements ObjectStore {
  readonly url: string;
  readonly stage?: (body: Uint8Array, options?: OpOptions) => Promise<StagedObject>;

  constructor(
    private readonly tables: ObjectStore,
    private readonly wal: ObjectStore,
  ) {
    this.url = tables.url;
    // Only WAL entries are staged (the WAL writer's put), so staging is the WAL store's.
    if (wal.stage) this.stage = wal.stage.bind(wal);
  }

  /** The two stores, for what must be checked of each (the conditional-write probe). */
  members(): ObjectStore[] {
    return [this.tables, this.wal];
  }

  get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    return this.of(key).get(key, options);
  }

  head(key: string, options?: OpOptions): Promise<ObjectMeta | null> {
    return this.of(key).head(key, options);
  }

  put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectMeta> {
    return this.of(key).put(key, body, options);
  }

  putIfAbsent(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta> {
    return this.of(key).putIfAbsent(key, body, options);
  }

  putIfMatch(key: string, body: Uint8Array, etag: string, options?: OpOptions): Promise<ObjectMeta> {
    return this.of(key).putIfMatch(key, body, etag, options);
  }

  delete(key: string, options?: OpOptions): Promise<void> {
    return this.of(key).delete(key, options);
  }

  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta[]> {
    const reach = walReach(prefix);
    if (reach === 'all') return this.wal.list(prefix, options);
    if (reach === 'none') return this.tables.list(prefix, options);
    return mergePages(this.tables.list(prefix, options), this.wal.list(prefix, options), options?.pageSize);
  }

  async close(): Promise<void> {
    await Promise.all([this.tables.close(), this.wal.close()]);
  }

  private of(key: string): ObjectStore {
    return walReach(key) === 'all' ? this.wal : this.tables;
  }
}

type Reach = 'all' | 'some' | 'none';

/** Whether every key under `prefix` is a WAL key, some may be, or none is. */
export function walReach(prefix: string): Reach {
  const segments = prefix.split('/');
  const reaches = WAL_LANES.map((lane) => laneReach(segments, lane));
  if (reaches.includes('all')) return 'all';
  return reaches.includes('some') ? 'some' : 'none';
}

function laneReach(segments: readonly string[], lane: ReadonlyArray<string | null>): Reach {
  for (let i = 0; i < lane.length; i++) {
    const want = lane[i] as string | null;
    const have = segments[i];
    const last = i === segments.length - 1;
    if (have === undefined) return 'some';
    if (last) return want === null || want.startsWith(have) ? 'some' : 'none';
    if (want !== null && have !== want) return 'none';
  }
  return 'all';
}

/** Two listings, each in key order, as one in key order, in pages of about `pageSize`. */
async function* mergePages(
  a: AsyncIterable<ObjectMeta[]>,
  b: AsyncIterable<ObjectMeta[]>,
  pageSize = 1000,
): AsyncGenerator<ObjectMeta[]> {
  const left = flatten(a)[Symbol.asyncIterator]();
  const right = flatten(b)[Symbol.asyncIterator]();
  let [x, y] = await Promise.all([left.next(), right.next()]);
  let page: ObjectMeta[] = [];
  while (!x.done || !y.done) {
    const takeLeft = !x.done && (y.done || compareKeys(x.value.key, y.value.key) <= 0);
    page.push(takeLeft ? x.value! : y.value!);
    if (takeLeft) x = await left.next();
    else y = await right.next();
    if (page.length >= pageSize) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

async function* flatten(pages: AsyncIterable<ObjectMeta[]>): AsyncGenerator<ObjectMeta> {
  for await (const page of pages) yield* page;
}

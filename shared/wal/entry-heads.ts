/**
 * The heads of table-lane WAL entries a process read for its flushes (docs/table-wal-lane.md,
 * §12): a section that ends within an entry's first `ENTRY_HEAD_BYTES` is cut from one GET of
 * that head, which the flushes of the entry's other shards then share, where a range GET per
 * shard made as many requests per entry as the table has shards. A lane key's bytes never change
 * while a shard may still flush them, so a head answers what the store would.
 */
import { LRUCache } from 'lru-cache';
import { abortedError, throwIfAborted } from '../store/abort.ts';
import type { ObjectStore } from '../store/object-store.ts';

/** Small enough that a GET of it costs about a request's latency, whatever of it a shard needs. */
export const ENTRY_HEAD_BYTES = 256 * 1024;
const KEPT_BYTES = 32 * 1024 * 1024;

/** Bytes of an entry, and the size of the whole entry they came from. */
export interface EntryBytes {
  body: Uint8Array;
  size: number;
}

export class EntryHeads {
  private readonly kept: LRUCache<string, EntryBytes>;
  /** Heads being read, shared by every caller that asks meanwhile. */
  private readonly reading = new Map<string, Promise<EntryBytes | null>>();

  constructor(keptBytes = KEPT_BYTES) {
    this.kept = new LRUCache<string, EntryBytes>({
      maxSize: keptBytes,
      sizeCalculation: (head) => Math.max(1, head.body.byteLength),
    });
  }

  /**
   * Bytes [start, end) of the entry at `key` (fewer when the entry is shorter), or null when
   * it does not exist; what is not kept is read from `store`. A range past the head is read
   * by a range GET of its own and not kept.
   */
  async read(
    store: ObjectStore,
    key: string,
    range: { start: number; end: number },
    signal?: AbortSignal,
  ): Promise<EntryBytes | null> {
    if (range.end > ENTRY_HEAD_BYTES) return readEntryRange(store, key, range, signal);
    throwIfAborted(signal, 'get');
    const head = this.kept.get(key) ?? (await untilAborted(this.readHead(store, key), signal));
    return head && { body: head.body.subarray(range.start, range.end), size: head.size };
  }

  /**
   * Without any one caller's signal: a flush that gives up must not fail the others' read.
   * Only an answer is kept; a failure or a missing entry is asked of the store again.
   */
  private readHead(store: ObjectStore, key: string): Promise<EntryBytes | null> {
    const under = this.reading.get(key);
    if (under) return under;
    const read = store
      .get(key, { range: { start: 0, end: ENTRY_HEAD_BYTES } })
      .then((object) => {
        if (!object) return null;
        const head = { body: object.body, size: object.meta.size };
        this.kept.set(key, head);
        return head;
      })
      .finally(() => this.reading.delete(key));
    this.reading.set(key, read);
    return read;
  }
}

/** Bytes [start, end) of the entry at `key` by one range GET, or null when it does not exist. */
export async function readEntryRange(
  store: ObjectStore,
  key: string,
  range: { start: number; end: number },
  signal?: AbortSignal,
): Promise<EntryBytes | null> {
  const object = await store.get(key, { range, signal });
  return object && { body: object.body, size: object.meta.size };
}

/** `work`, or ABORTED as soon as `signal` aborts, leaving `work` to run on for others. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(abortedError('get', signal.reason));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * An ObjectStore wrapper that stops one chosen call at the door until the test lets it
 * through, so a test can put another actor's whole run between a read and what follows
 * it (a sync between its manifest read and its Redis write, a zombie flush between its
 * manifest read and its WAL reads) without relying on timing. A put can also be let
 * through and its answer held, as when the process that made it stalls after it landed.
 */
import type {
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  PutOptions,
  StoredObject,
} from '../../shared/store/object-store.ts';

export interface Gate {
  /** Resolves when the held call has arrived (and is waiting). */
  readonly reached: Promise<void>;
  /** Lets the held call go on to the inner store. */
  release(): void;
}

type GatedOp = 'get' | 'list' | 'put' | 'putIfAbsent' | 'delete';

/** Where a held call waits: before it reaches the inner store, or with its answer. */
type Door = 'call' | 'answer';

interface Held {
  op: GatedOp;
  door: Door;
  key: RegExp;
  arrived(): void;
  opened: Promise<void>;
}

export class GatedStore implements ObjectStore {
  private holds: Held[] = [];

  constructor(readonly inner: ObjectStore) {}

  get url(): string {
    return this.inner.url;
  }

  /** Holds the next `op` call whose key (or list prefix) matches `key`. */
  hold(op: GatedOp, key: RegExp): Gate {
    return this.gate(op, 'call', key);
  }

  /** Lets the next put-if-absent whose key matches `key` land, and holds its answer. */
  holdAnswer(key: RegExp): Gate {
    return this.gate('putIfAbsent', 'answer', key);
  }

  private gate(op: GatedOp, door: Door, key: RegExp): Gate {
    let arrived!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const opened = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.holds.push({ op, door, key, arrived, opened });
    return { reached, release };
  }

  async get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    await this.door('get', key);
    return this.inner.get(key, options);
  }

  head(key: string, options?: OpOptions): Promise<ObjectMeta | null> {
    return this.inner.head(key, options);
  }

  async put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectMeta> {
    await this.door('put', key);
    return this.inner.put(key, body, options);
  }

  async putIfAbsent(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta> {
    await this.door('putIfAbsent', key);
    const meta = await this.inner.putIfAbsent(key, body, options);
    await this.door('putIfAbsent', key, 'answer');
    return meta;
  }

  putIfMatch(key: string, body: Uint8Array, etag: string, options?: OpOptions): Promise<ObjectMeta> {
    return this.inner.putIfMatch(key, body, etag, options);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta[]> {
    await this.door('list', prefix);
    yield* this.inner.list(prefix, options);
  }

  async delete(key: string, options?: OpOptions): Promise<void> {
    await this.door('delete', key);
    return this.inner.delete(key, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async door(op: GatedOp, key: string, door: Door = 'call'): Promise<void> {
    const held = this.holds.find((h) => h.op === op && h.door === door && h.key.test(key));
    if (!held) return;
    this.holds = this.holds.filter((h) => h !== held);
    held.arrived();
    await held.opened;
  }
}

/**
 * A bounded LRU of decoded immutable objects: WAL entries (written once, put-if-absent) and
 * L0 files (a pure function of their generation). Manifests are never cached here: they
 * are the one thing a read must see fresh.
 */
import { type Table, tableFromIPC } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';

export interface CachedTable {
  table: Table;
  bytes: number;
  /** Derived indexes of the table, built on first use and kept with it. */
  derived: Map<string, unknown>;
}

export class ObjectCache {
  private readonly lru: LRUCache<string, CachedTable> | null;

  constructor(
    private readonly store: ObjectStore,
    maxBytes: number,
  ) {
    this.lru =
      maxBytes > 0
        ? new LRUCache<string, CachedTable>({
            maxSize: maxBytes,
            sizeCalculation: (v) => Math.max(1, v.bytes),
          })
        : null;
  }

  /** The decoded Arrow file at `key`, or null when the object does not exist. */
  async table(key: string, signal?: AbortSignal): Promise<CachedTable | null> {
    const hit = this.lru?.get(key);
    if (hit) return hit;
    const object = await this.store.get(key, { signal });
    if (!object) return null;
    let table: Table;
    try {
      table = tableFromIPC(object.body);
    } catch (err) {
      throw new SluiceError('DATA_CORRUPT', `${key} is not an Arrow file`, { key }, { cause: err });
    }
    const cached: CachedTable = { table, bytes: object.body.byteLength, derived: new Map() };
    this.lru?.set(key, cached);
    return cached;
  }
}

/** A derived index of a cached table, computed once per cached copy. */
export function derived<T>(cached: CachedTable, name: string, build: () => T): T {
  if (cached.derived.has(name)) return cached.derived.get(name) as T;
  const value = build();
  cached.derived.set(name, value);
  return value;
}

/** The decoded object at `key`, which the caller knows must exist: gone, it is lost data. */
export async function required(cache: ObjectCache, key: string, signal?: AbortSignal): Promise<CachedTable> {
  const cached = await cache.table(key, signal);
  if (!cached) throw new SluiceError('DATA_MISSING', `${key} is missing`, { key });
  return cached;
}

/**
 * Deleting many objects at once: side by side, a bounded number in flight. One at a time
 * (a directory fsync each on the file store), a chaos run's GC backlog kept each sampler
 * tick's collection past 20 s; side by side, the file store's deletes in one directory
 * share their fsyncs and S3 answers them in parallel.
 */
import pLimit from 'p-limit';
import type { ObjectStore } from './object-store.ts';

/** Deletes in flight at once. */
const DELETE_CONCURRENCY = 32;

/** Deletes `keys` in no particular order; returns how many. */
export async function deleteAll(store: ObjectStore, keys: readonly string[]): Promise<number> {
  const limit = pLimit(DELETE_CONCURRENCY);
  await Promise.all(keys.map((key) => limit(() => store.delete(key))));
  return keys.length;
}

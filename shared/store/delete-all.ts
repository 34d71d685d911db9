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

/**
 * Deletes `keys` in no particular order; returns how many. At the first failure no further
 * delete starts, and the failure is thrown once those already running have ended: during a
 * store outage each failed sampler tick would otherwise leave its queue of deletes running
 * under the next tick's, and a caller that closes the store would race them.
 */
export async function deleteAll(store: ObjectStore, keys: readonly string[]): Promise<number> {
  const limit = pLimit(DELETE_CONCURRENCY);
  const failures: unknown[] = [];
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        if (failures.length > 0) return;
        try {
          await store.delete(key);
        } catch (err) {
          failures.push(err);
        }
      }),
    ),
  );
  if (failures.length > 0) throw failures[0];
  return keys.length;
}

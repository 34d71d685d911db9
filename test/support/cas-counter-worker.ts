/**
 * One of several processes incrementing a counter object in a shared file store with
 * read + putIfMatch, retrying on conflict: `tsx cas-counter-worker.ts <root> <key> <increments>`.
 * With a real cross-process compare-and-swap, no increment is lost.
 */
import { isSluiceError } from '../../shared/errors.ts';
import { FsStore } from '../../shared/store/fs-store.ts';

const [root, key, increments] = process.argv.slice(2);
if (!root || !key || !increments) throw new Error('usage: cas-counter-worker.ts <root> <key> <increments>');

const store = new FsStore(root);
for (let done = 0; done < Number(increments); ) {
  const current = await store.get(key);
  if (!current) throw new Error(`${key} does not exist`);
  const next = Number(new TextDecoder().decode(current.body)) + 1;
  try {
    await store.putIfMatch(key, new TextEncoder().encode(String(next)), current.meta.etag);
    done += 1;
  } catch (err) {
    if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
  }
}

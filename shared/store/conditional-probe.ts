/**
 * Sluice commits by conditional puts: put-if-absent for every WAL entry and manifest
 * version, put-if-match where a document is replaced. A store that takes the headers and
 * ignores them — Google Cloud Storage's XML API, Backblaze B2 — would let two writers both
 * "win": acked WAL entries and manifest commits silently overwritten. So every process asks
 * each of its stores once, before it accepts any write, to refuse a second put-if-absent
 * and a put-if-match with a wrong ETag, and stops when it does not.
 */
import { randomUUID } from 'node:crypto';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { ObjectStore } from './object-store.ts';
import { WalRoutedStore } from './wal-routed-store.ts';

const PROBE_PREFIX = '_sluice/probe/';
const HONOURING =
  'AWS S3, S3 Express One Zone, MinIO and Cloudflare R2 honour them; GCS’s XML API and B2 do not';

export async function assertConditionalWrites(store: ObjectStore): Promise<void> {
  const stores = store instanceof WalRoutedStore ? store.members() : [store];
  for (const one of stores) await probe(one);
}

async function probe(store: ObjectStore): Promise<void> {
  const key = `${PROBE_PREFIX}${process.pid}-${randomUUID()}`;
  const bytes = (text: string) => new TextEncoder().encode(text);
  try {
    await store.putIfAbsent(key, bytes('first'));
    if (await succeeds(store.putIfAbsent(key, bytes('second')))) {
      throw unsafe(
        store,
        'put-if-absent (If-None-Match: *)',
        `a second put-if-absent of ${key} replaced the first`,
      );
    }
    if (await succeeds(store.putIfMatch(key, bytes('third'), 'not-its-etag'))) {
      throw unsafe(
        store,
        'put-if-match (If-Match)',
        `a put-if-match of ${key} with a wrong ETag replaced it`,
      );
    }
  } finally {
    await store.delete(key).catch(() => undefined);
  }
}

/** True when the put landed; false when it was refused as it must be; anything else is thrown. */
async function succeeds(put: Promise<unknown>): Promise<boolean> {
  try {
    await put;
    return true;
  } catch (err) {
    if (isSluiceError(err, 'PRECONDITION_FAILED')) return false;
    throw err;
  }
}

function unsafe(store: ObjectStore, feature: string, what: string): SluiceError {
  return new SluiceError(
    'STORE_UNSAFE',
    `${store.url} does not honour ${feature}: ${what}. Sluice would silently lose acked writes on it; use a store that honours conditional writes (${HONOURING})`,
    { store: store.url, feature },
  );
}

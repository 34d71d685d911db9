import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsStore, type FsStoreOptions } from '../../shared/store/fs-store.ts';

export interface TempDir {
  readonly path: string;
  /** A file store on this directory; `cleanup` closes it before the directory goes. */
  fsStore(options?: FsStoreOptions): FsStore;
  cleanup(): Promise<void>;
}

/** A fresh directory of the test's own, e.g. for a `file://` store. */
export async function createTempDir(label = 'test'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `sluice-${label}-`));
  const stores: FsStore[] = [];
  return {
    path,
    fsStore(options) {
      const store = new FsStore(path, options);
      stores.push(store);
      return store;
    },
    async cleanup() {
      // A store makes spare temp files in the background: closed first, none is being made
      // while the tree goes. One opened elsewhere (a runtime's) may still be making one, so
      // the removal can find a directory not yet empty (ENOTEMPTY), which `rm` then retries.
      await Promise.all(stores.splice(0).map((store) => store.close()));
      await rm(path, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

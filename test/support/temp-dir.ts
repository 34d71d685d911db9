import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  cleanup(): Promise<void>;
}

/** A fresh directory of the test's own, e.g. for a `file://` store. */
export async function createTempDir(label = 'test'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `sluice-${label}-`));
  // A file store not closed may still be making a spare temp file while the tree goes, so
  // the removal can find a directory not yet empty (ENOTEMPTY), which `rm` then retries.
  return { path, cleanup: () => rm(path, { recursive: true, force: true, maxRetries: 5 }) };
}

/**
 * Lance's optimize on the prepared base: fragments compacted, the key index brought up to
 * date, and versions older than the oldest one a read may still use removed. Lance never
 * removes the latest version, nor files a kept version references.
 */
import type { PreparedBase } from './merge-commit.ts';

/**
 * `keepFrom` is the oldest version a pinned read or scan cursor may still open; every
 * version committed before it goes. Returns the latest version after the optimize.
 */
export async function optimizeDataset(prepared: PreparedBase, keepFrom: number): Promise<number> {
  const versions = await prepared.handle.listVersions();
  // A version already gone leaves nothing to protect: the oldest left is the cutoff, removing none.
  const cutoff = (versions.find((v) => v.version === keepFrom) ?? versions[0])?.timestamp ?? new Date(0);
  await prepared.handle.optimize({ cleanupOlderThan: cutoff });
  return prepared.handle.version();
}

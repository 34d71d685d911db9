/**
 * Lance's optimize on the prepared base: fragments compacted, the key index brought up to
 * date, and versions older than the oldest one a read may still use removed. Lance never
 * removes the latest version, nor files a kept version references.
 */
import { SluiceError } from '../errors.ts';
import { isCommitConflict } from './lance-commits.ts';
import type { PreparedBase } from './merge-commit.ts';

/**
 * `keepFrom` is the oldest version a pinned read or scan cursor may still open; versions
 * committed more than `slackMs` before it go. Returns the latest version after the optimize.
 *
 * LanceDB turns the cutoff into an age (now − cutoff) and Lance turns it back into a time
 * when its cleanup starts, after compaction and the index update: the cutoff then lies
 * later by as long as those took. `slackMs`, at least the longest an optimize may run,
 * keeps that drift from ever reaching `keepFrom`.
 */
export async function optimizeDataset(
  prepared: PreparedBase,
  keepFrom: number,
  slackMs: number,
): Promise<number> {
  const versions = await prepared.handle.listVersions();
  // A version already gone leaves nothing to protect: the oldest left is the cutoff, removing none.
  const kept = (versions.find((v) => v.version === keepFrom) ?? versions[0])?.timestamp.getTime() ?? 0;
  try {
    await prepared.handle.optimize({ cleanupOlderThan: new Date(kept - slackMs) });
  } catch (err) {
    throw isCommitConflict(err)
      ? new SluiceError('STORE_CONFLICT', 'a commit on the base preempted the optimize', {}, { cause: err })
      : err;
  }
  return prepared.handle.version();
}

/**
 * Where the benches keep their files: one directory per run, removed when the run ends, with
 * a directory per case and system inside it. Nothing is deleted while cases run. On a file
 * system that passes over recently freed inodes before it hands out a new one (ext4 without
 * a journal skips them for one to six minutes, as on the machines these figures come from),
 * a case that ran after another's cleanup paid up to a millisecond of kernel time for every
 * file it created, so its latencies measured the cleanup before it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let runDir: Promise<string> | null = null;

/** A new directory for one case's system, kept until `removeBenchDirs`. */
export async function benchDir(name: string): Promise<string> {
  runDir ??= mkdtemp(join(tmpdir(), 'sluice-bench-'));
  return mkdtemp(join(await runDir, `${name}-`));
}

/** Removes every directory this run made. */
export async function removeBenchDirs(): Promise<void> {
  const dir = runDir;
  runDir = null;
  if (dir) await rm(await dir, { recursive: true, force: true });
}

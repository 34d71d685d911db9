/**
 * Where the benches keep their files: one directory per run, with a directory per case and
 * system inside it, and no file deleted until the run ends. On a file system that passes
 * over recently freed inodes before it hands out a new one (ext4 without a journal skips
 * them for one to six minutes, as on the machines these figures come from), a case that ran
 * after another's cleanup paid up to a millisecond of kernel time for every file it
 * created, so its latencies measured the cleanup before it. A finished case gives its disk
 * space back by truncating its files instead: their blocks are freed, their inodes stay.
 */
import { mkdtemp, readdir, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';

const TRUNCATE_CONCURRENCY = 16;

let runDir: Promise<string> | null = null;

/** A new directory for one case's system, kept until `removeBenchDirs`. */
export async function benchDir(name: string): Promise<string> {
  runDir ??= mkdtemp(join(tmpdir(), 'sluice-bench-'));
  return mkdtemp(join(await runDir, `${name}-`));
}

/** Frees the disk space of a directory no case reads any more, deleting nothing. */
export async function emptyBenchDir(dir: string): Promise<void> {
  const limit = pLimit(TRUNCATE_CONCURRENCY);
  const truncating: Promise<void>[] = [];
  for await (const file of filesUnder(dir)) truncating.push(limit(() => truncate(file)));
  await Promise.all(truncating);
}

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/** Removes every directory this run made. */
export async function removeBenchDirs(): Promise<void> {
  const dir = runDir;
  runDir = null;
  if (dir) await rm(await dir, { recursive: true, force: true });
}

/**
 * Where the benches keep their files: one directory per run, removed when the run ends, so
 * that no case measures the deletes of the one before (docs/design.md, "Benchmarks and the
 * chaos run"). A write-bench case empties its directories when it ends: its files are
 * truncated, which frees their blocks and keeps their inodes.
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

/**
 * Frees the disk space of a directory no case reads any more, deleting nothing. It never
 * throws, so a case's own error is the one reported: a file it could not reach keeps its
 * size until `removeBenchDirs`.
 */
export async function emptyBenchDir(dir: string): Promise<void> {
  const files = await filesUnder(dir).catch(() => []);
  const limit = pLimit(TRUNCATE_CONCURRENCY);
  await Promise.all(files.map((file) => limit(() => truncate(file).catch(() => undefined))));
}

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Removes every directory this run made. */
export async function removeBenchDirs(): Promise<void> {
  const dir = runDir;
  runDir = null;
  if (dir) await rm(await dir, { recursive: true, force: true });
}

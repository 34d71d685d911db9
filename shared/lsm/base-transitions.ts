/**
 * The only ways the base manifest may change: a merge adds a run on top and advances the
 * watermarks of the shards it merged; a compaction replaces adjacent runs by one. Each is
 * a pure decision on the latest manifest, re-run after every lost race.
 */
import { SluiceError } from '../errors.ts';
import { type BaseManifest, type BaseRun, mergedThrough } from './base-manifest.ts';

/** The L0 generations of one shard a merge read: `from` through `to`, inclusive. */
export interface MergedRange {
  shard: number;
  from: number;
  to: number;
}

/**
 * I11: a merge whose ranges are already at or below the watermarks is a no-op (a
 * redelivered job, or a commit whose answer was lost). A merge whose ranges do not start
 * right after the watermarks was planned on a stale manifest: committing it would put
 * older rows on top of newer ones, so it is refused and re-planned.
 */
export function commitMerge(base: BaseManifest, ranges: MergedRange[], run: BaseRun): BaseManifest | null {
  if (ranges.every((r) => mergedThrough(base, r.shard) >= r.to)) return null;
  const stale = ranges.find((r) => mergedThrough(base, r.shard) !== r.from - 1);
  if (stale) {
    throw new SluiceError('FENCED', 'the base moved since this merge was planned', {
      table: base.table,
      shard: stale.shard,
      plannedFrom: stale.from,
      mergedThrough: mergedThrough(base, stale.shard),
    });
  }
  const watermarks = { ...base.mergedThrough };
  for (const r of ranges) watermarks[String(r.shard)] = r.to;
  return { ...base, runs: [run, ...base.runs], mergedThrough: watermarks };
}

/** Replaces the adjacent runs `replaced` (newest first) by `run`; refused if they changed meanwhile. */
export function commitCompaction(base: BaseManifest, replaced: string[], run: BaseRun): BaseManifest | null {
  const start = base.runs.findIndex((r) => r.id === replaced[0]);
  const window = base.runs.slice(start, start + replaced.length).map((r) => r.id);
  if (start < 0 || window.join() !== replaced.join()) {
    if (base.runs.some((r) => r.id === run.id)) return null;
    throw new SluiceError('FENCED', 'the runs to compact changed meanwhile', { table: base.table, replaced });
  }
  const runs = [...base.runs.slice(0, start), run, ...base.runs.slice(start + replaced.length)];
  const retiredAt = new Date().toISOString();
  const retired = [
    ...(base.retired ?? []),
    ...base.runs.slice(start, start + replaced.length).map((r) => ({ path: r.path, retiredAt })),
  ];
  return { ...base, runs, retired };
}

/** Forgets retired runs GC has deleted. */
export function forgetRetired(base: BaseManifest, deleted: ReadonlySet<string>): BaseManifest | null {
  const retired = (base.retired ?? []).filter((r) => !deleted.has(r.path));
  return retired.length === (base.retired ?? []).length ? null : { ...base, retired };
}

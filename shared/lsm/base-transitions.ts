/**
 * The only ways the base manifest may change: a merge records the Lance version it
 * committed and advances the watermarks of the shards it merged; an optimize records the
 * Lance version it rewrote; a retention step records the Lance version that deleted the
 * rows below `expiredBefore`. Each is a pure decision on the latest manifest, re-run after
 * every lost race, and each names the manifest state it was planned on: the Lance version
 * recorded then is the fence that keeps a zombie's commit out (docs/base-table.md).
 */
import { SluiceError } from '../errors.ts';
import { type BaseManifest, baseSchemaVersion, mergedThrough } from './base-manifest.ts';

/** The L0 generations of one shard a merge read: `from` through `to`, inclusive. */
export interface MergedRange {
  shard: number;
  from: number;
  to: number;
}

/**
 * I11: a merge whose ranges are already at or below the watermarks is a no-op (a
 * redelivered job, or a commit whose answer was lost). A merge planned on another Lance
 * version, or whose ranges do not start right after the watermarks, was planned on a
 * stale manifest: its Lance commit is not recorded, and the merge is planned again.
 */
export function commitMerge(
  base: BaseManifest,
  plannedOn: number | null,
  ranges: MergedRange[],
  lanceVersion: number,
  schemaVersion = baseSchemaVersion(base),
): BaseManifest | null {
  const evolves = schemaVersion > baseSchemaVersion(base);
  if (!evolves && ranges.every((r) => mergedThrough(base, r.shard) >= r.to)) return null;
  const stale = ranges.find((r) => mergedThrough(base, r.shard) !== r.from - 1);
  if (stale || base.lanceVersion !== plannedOn) {
    throw new SluiceError('FENCED', 'the base moved since this merge was planned', {
      table: base.table,
      plannedOn,
      lanceVersion: base.lanceVersion,
      ...(stale
        ? { shard: stale.shard, plannedFrom: stale.from, mergedThrough: mergedThrough(base, stale.shard) }
        : {}),
    });
  }
  const watermarks = { ...base.mergedThrough };
  for (const r of ranges) watermarks[String(r.shard)] = r.to;
  return {
    ...base,
    lanceVersion,
    mergedThrough: watermarks,
    mergesSinceOptimize: base.mergesSinceOptimize + 1,
    ...(evolves ? { schemaVersion } : {}),
  };
}

/** An optimize planned on `plannedOn` is recorded only while that is still the recorded version. */
export function commitOptimize(
  base: BaseManifest,
  plannedOn: number,
  lanceVersion: number,
): BaseManifest | null {
  if (base.lanceVersion !== plannedOn) {
    throw new SluiceError('FENCED', 'the base moved while it was optimized', {
      table: base.table,
      plannedOn,
      lanceVersion: base.lanceVersion,
    });
  }
  return { ...base, lanceVersion, mergesSinceOptimize: 0 };
}

/**
 * A retention step planned on `plannedOn` is recorded only while that is still the recorded
 * version, and `expiredBefore` only moves up. It counts toward the next optimize like a
 * merge, since only a compaction takes the deleted rows out of storage.
 */
export function commitRetention(
  base: BaseManifest,
  plannedOn: number,
  lanceVersion: number,
  expiredBefore: number,
): BaseManifest {
  if (base.lanceVersion !== plannedOn) {
    throw new SluiceError('FENCED', 'the base moved while expired rows were deleted', {
      table: base.table,
      plannedOn,
      lanceVersion: base.lanceVersion,
    });
  }
  return {
    ...base,
    lanceVersion,
    expiredBefore: Math.max(expiredBefore, base.expiredBefore ?? expiredBefore),
    mergesSinceOptimize: base.mergesSinceOptimize + 1,
  };
}

/**
 * A snapshot's overlay in key order, as a scan answers it (docs/design.md, "Read"): each key
 * its runs hold once, with the row of the newest run holding it, a key whose newest row is a
 * delete left out. It depends on nothing but the runs, so it is merged once per snapshot
 * (snapshot-overlay.ts) and every page of a scan slices it: a heap over every run per page
 * compared keys again for every row, and with 100 pending generations that merge was a third
 * of a scan's time.
 */
import type { SortedRun } from './sorted-run.ts';
import { hexKeysOf } from './sorted-run.ts';

export interface OverlayOrder {
  /** Every live key (hex, whose order is the encoded keys' order), ascending. */
  keys: string[];
  /** Per key, the snapshot's run holding its newest row (its index, newest first). */
  runs: Int32Array;
  /** Per key, that row's index in its run. */
  rows: Int32Array;
}

export function overlayOrder(runs: readonly SortedRun[]): OverlayOrder {
  let parts: OverlayOrder[] = runs.map((run, r) => ({
    keys: hexKeysOf(run),
    runs: new Int32Array(run.size).fill(r),
    rows: Int32Array.from({ length: run.size }, (_, i) => i),
  }));
  if (parts.length === 0) return { keys: [], runs: new Int32Array(0), rows: new Int32Array(0) };
  // Adjacent parts merged pairwise: each output row costs one string comparison per round.
  while (parts.length > 1) {
    const next: OverlayOrder[] = [];
    for (let p = 0; p < parts.length; p += 2) {
      next.push(p + 1 < parts.length ? mergeTwo(parts[p]!, parts[p + 1]!) : parts[p]!);
    }
    parts = next;
  }
  return withoutDeletes(runs, parts[0]!);
}

/** `newer`'s runs are all newer than `older`'s: of a key both hold, `newer`'s row is kept. */
function mergeTwo(newer: OverlayOrder, older: OverlayOrder): OverlayOrder {
  const size = newer.keys.length + older.keys.length;
  const out: OverlayOrder = {
    keys: new Array<string>(size),
    runs: new Int32Array(size),
    rows: new Int32Array(size),
  };
  let i = 0;
  let j = 0;
  let o = 0;
  const take = (from: OverlayOrder, at: number) => {
    out.keys[o] = from.keys[at]!;
    out.runs[o] = from.runs[at]!;
    out.rows[o++] = from.rows[at]!;
  };
  while (i < newer.keys.length && j < older.keys.length) {
    const a = newer.keys[i]!;
    const b = older.keys[j]!;
    if (a <= b) {
      take(newer, i++);
      if (a === b) j++;
    } else take(older, j++);
  }
  while (i < newer.keys.length) take(newer, i++);
  while (j < older.keys.length) take(older, j++);
  out.keys.length = o;
  return { keys: out.keys, runs: out.runs.subarray(0, o), rows: out.rows.subarray(0, o) };
}

function withoutDeletes(runs: readonly SortedRun[], merged: OverlayOrder): OverlayOrder {
  const live: number[] = [];
  for (let i = 0; i < merged.keys.length; i++) {
    if (!runs[merged.runs[i]!]!.isDelete(merged.rows[i]!)) live.push(i);
  }
  if (live.length === merged.keys.length) return merged;
  return {
    keys: live.map((i) => merged.keys[i]!),
    runs: Int32Array.from(live, (i) => merged.runs[i]!),
    rows: Int32Array.from(live, (i) => merged.rows[i]!),
  };
}

/** The first index whose key is at or after `key` (after it, when `strict`). */
export function seekKey(order: OverlayOrder, key: string, strict = false): number {
  let lo = 0;
  let hi = order.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = order.keys[mid]!;
    if (at < key || (strict && at === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Retention at read time (I10): a read takes its cutoff once, with its snapshot, and sees a
 * row only if its retention column is at or above it. The cutoff is in milliseconds since
 * the epoch, whatever the column's unit, so a scan cursor can carry it and every page
 * filters alike. In the pending overlay an expired row reads as a delete: when it is its
 * key's newest value it hides the key, older base row included.
 */
import type { TimestampUnit } from '../arrow/column-type.ts';
import { columnRef, timestampLiteral } from '../base/key-predicate.ts';
import { retentionColumn } from '../table/retention.ts';
import type { TableDef } from '../table/table-def.ts';
import type { SortedRun } from './sorted-run.ts';

/**
 * The oldest visible time: `now − maxAgeSeconds`, never below what the base has deleted
 * (`expiredBefore`), so a reader whose clock lags shows no row that is gone from the base.
 */
export function cutoffOf(table: TableDef, nowMs: number, expiredBefore: number | null = null): number | null {
  if (!table.retention) return null;
  return Math.max(nowMs - table.retention.maxAgeSeconds * 1000, expiredBefore ?? Number.NEGATIVE_INFINITY);
}

/** A Lance filter passing exactly the rows at or above `cutoff`. */
function visiblePredicate(table: TableDef, cutoff: number): string {
  const { column, unit } = columnOf(table);
  return `${columnRef(column)} >= ${timestampLiteral(cutoff, unit)}`;
}

/** A Lance filter passing exactly the rows below `cutoff`. */
export function expiredPredicate(table: TableDef, cutoff: number): string {
  const { column, unit } = columnOf(table);
  return `${columnRef(column)} < ${timestampLiteral(cutoff, unit)}`;
}

/** `predicate` and the cutoff's, or `predicate` alone with no cutoff. */
export function andVisible(table: TableDef, cutoff: number | null, predicate: string | null): string | null {
  if (cutoff === null) return predicate;
  const visible = visiblePredicate(table, cutoff);
  return predicate === null ? visible : `(${predicate}) AND (${visible})`;
}

/**
 * The runs as the read sees them, an expired upsert reading as a delete. A run with no
 * expired row is itself, so what is kept with it (its hex keys) is kept for every read.
 */
export function expiringRuns(
  table: TableDef,
  runs: readonly SortedRun[],
  cutoff: number | null,
): SortedRun[] {
  if (cutoff === null) return [...runs];
  const { column, unit } = columnOf(table);
  const edge = unit === 'us' ? cutoff * 1000 : cutoff;
  return runs.map((run) => {
    const times = timesOf(run, column);
    if (times.oldest >= edge) return run;
    const expiring: SortedRun = {
      size: run.size,
      batches: run.batches,
      key: (i) => run.key(i),
      isDelete: (i) => run.isDelete(i) || times.values[run.position(i)]! < edge,
      position: (i) => run.position(i),
    };
    unexpiredRuns.set(expiring, run);
    return expiring;
  });
}

const unexpiredRuns = new WeakMap<SortedRun, SortedRun>();

/**
 * The run with no cutoff applied: what is built from a run and kept across reads (a pending
 * search table, which rows a filter passes) must not depend on the cutoff of the read that
 * built it, since a scan cursor pins an older one; each read applies its own cutoff.
 */
export function unexpired(run: SortedRun): SortedRun {
  return unexpiredRuns.get(run) ?? run;
}

interface RunTimes {
  /** The retention column per row position, in its unit. */
  values: Float64Array;
  /** The oldest upsert's. */
  oldest: number;
}

/** Runs are kept with their immutable objects, so their times are computed once. */
const timesByRun = new WeakMap<SortedRun, RunTimes>();

function timesOf(run: SortedRun, column: string): RunTimes {
  let times = timesByRun.get(run);
  if (times) return times;
  const total = run.batches.reduce((sum, b) => sum + b.numRows, 0);
  const values = new Float64Array(total);
  let at = 0;
  for (const batch of run.batches) {
    const data = batch.getChild(column)?.data[0];
    const stored = data?.values as BigInt64Array | undefined;
    for (let row = 0; row < batch.numRows; row++) values[at + row] = stored ? Number(stored[row]) : 0;
    at += batch.numRows;
  }
  let oldest = Infinity;
  for (let i = 0; i < run.size; i++) {
    if (!run.isDelete(i)) oldest = Math.min(oldest, values[run.position(i)]!);
  }
  times = { values, oldest };
  timesByRun.set(run, times);
  return times;
}

/** Only asked of a table with a cutoff, so with retention. */
function columnOf(table: TableDef): { column: string; unit: TimestampUnit } {
  return retentionColumn(table.retention!, table.schema);
}

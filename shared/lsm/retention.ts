/**
 * Retention in the base (docs/base-table.md, "Retention"). A merge adds nothing expired
 * (`expiredRows`, in `changeOf`); the retention step of the merge lane deletes what has
 * expired since: it picks `hi`, at most `now − maxAgeSeconds`, so that the rows below it
 * are at most `retentionBatchRows` (at least one distinct timestamp, so each step makes
 * progress), deletes `column < hi` in one Lance commit on the prepared version, and records
 * that version with `expiredBefore = hi` — only when the commit is clean, like a merge, so a
 * crash between the delete and its record leaves an unrecorded commit that the next
 * `prepareBase` undoes before the step runs again.
 */
import type { RecordBatch } from 'apache-arrow';
import type { LanceCommit } from '../base/lance-commits.ts';
import { prepareBase } from '../base/merge-commit.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import { cutoffOf, expiredPredicate } from '../read/retention-cutoff.ts';
import { retentionColumn } from '../table/retention.ts';
import type { TableDef } from '../table/table-def.ts';
import { expiredBefore } from './base-manifest.ts';
import { commitRetention } from './base-transitions.ts';
import type { MergeDeps, MergeOptions } from './merge.ts';

export interface RetentionOutcome {
  /** Rows deleted from the base and recorded. */
  deleted: number;
  /** The recorded `expiredBefore` (ms since the epoch), or null when nothing was ever deleted. */
  expiredBefore: number | null;
  /** The Lance version recorded by this step, or null when it recorded none. */
  lanceVersion: number | null;
  /** Rows below `now − maxAgeSeconds` that this step left for the next. */
  more: boolean;
  rolledBack: LanceCommit[];
}

/** Which rows of `batches` (by index across them) are upserts below `cutoff`. */
export function expiredRows(
  table: TableDef,
  batches: readonly RecordBatch[],
  cutoff: number | null,
): (row: number) => boolean {
  if (cutoff === null || !table.retention) return () => false;
  const { column, unit } = retentionColumn(table.retention, table.schema);
  const edge = BigInt(cutoff) * (unit === 'us' ? 1000n : 1n);
  const expired = new Uint8Array(batches.reduce((sum, b) => sum + b.numRows, 0));
  let at = 0;
  for (const batch of batches) {
    const values = batch.getChild(column)?.data[0]?.values as BigInt64Array | undefined;
    if (values) for (let row = 0; row < batch.numRows; row++) expired[at + row] = values[row]! < edge ? 1 : 0;
    at += batch.numRows;
  }
  return (row) => expired[row] === 1;
}

const MAX_TRIES = 4;

export async function runRetention(
  deps: MergeDeps,
  table: TableDef,
  options: MergeOptions = {},
): Promise<RetentionOutcome> {
  const rolledBack: LanceCommit[] = [];
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const base = await deps.bases.read(table.name, options.signal);
    const target = cutoffOf(table, deps.clock(), expiredBefore(base));
    const nothing = {
      deleted: 0,
      expiredBefore: expiredBefore(base),
      lanceVersion: null,
      more: false,
      rolledBack,
    };
    if (target === null || base.lanceVersion === null) return nothing;
    const prepared = await prepareBase(deps.datasets, table, base.lanceVersion);
    rolledBack.push(...prepared.rolledBack);
    const below = (hi: number) => prepared.handle.countRows(expiredPredicate(table, hi));
    const { hi, rows } = await batchEdge(table, expiredBefore(base), target, below);
    options.onProgress?.('read');
    if (rows === 0) return nothing;
    await options.onStep?.('prepared');
    const { version } = await prepared.handle.delete(expiredPredicate(table, hi));
    options.onProgress?.('write');
    await options.onStep?.('retention-deleted');
    if (version !== prepared.on + 1) {
      // Another commit landed in between: this one is never recorded, and is undone at once.
      await prepareBase(
        deps.datasets,
        table,
        (await deps.bases.read(table.name, options.signal)).lanceVersion,
      );
      continue;
    }
    try {
      const { changed } = await deps.bases.update(
        table.name,
        (current) => commitRetention(current, base.lanceVersion!, version, hi),
        options.signal,
      );
      options.onProgress?.('commit');
      if (!changed) return nothing;
      return { deleted: rows, expiredBefore: hi, lanceVersion: version, more: hi < target, rolledBack };
    } catch (err) {
      if (!isSluiceError(err, 'FENCED')) throw err;
    }
  }
  throw new SluiceError('STORE_CONFLICT', 'retention kept finding the base moved', { table: table.name });
}

/**
 * The highest `hi` ≤ `target` with at most `retentionBatchRows` rows below it, by bisection
 * between what the base has deleted (nothing is below it) and `target`; when even the
 * oldest timestamp holds more, `hi` passes just that one, so every step makes progress.
 */
async function batchEdge(
  table: TableDef,
  deletedBefore: number | null,
  target: number,
  below: (hi: number) => Promise<number>,
): Promise<{ hi: number; rows: number }> {
  const limit = table.settings.retentionBatchRows;
  const all = await below(target);
  if (all <= limit) return { hi: target, rows: all };
  let lo = deletedBefore ?? Number.MIN_SAFE_INTEGER;
  let loRows = 0;
  let over = target;
  let overRows = all;
  while (over - lo > 1) {
    const mid = lo + Math.floor((over - lo) / 2);
    const rows = await below(mid);
    if (rows <= limit) {
      lo = mid;
      loRows = rows;
    } else {
      over = mid;
      overRows = rows;
    }
  }
  return loRows > 0 ? { hi: lo, rows: loRows } : { hi: over, rows: overRows };
}

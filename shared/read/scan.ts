/**
 * Scan, paginated with an opaque cursor that pins its snapshot. A page returns first the
 * pending overlay (WAL tail and unmerged L0 of every shard) in primary-key order — of runs
 * holding the same key the newest wins, and a delete hides the key — and then the base
 * dataset at the pinned Lance version in its own storage order, less the keys the overlay
 * holds (their newest value was returned, or they were deleted). Every page reads the same
 * pinned snapshot, so a scan returns every live row of that snapshot exactly once while
 * merges and optimize go on. A key range narrows both parts: the overlay is read from its
 * first key on and stops at its end, the base is filtered by Lance on the key through the
 * pinned version. A row below the retention cutoff the cursor pinned is in no page: in the
 * overlay it reads as a delete, and the base is filtered on it. Memory per page is the
 * overlay (bounded by `pendingRejectGenerations`) plus `limit` base rows, whatever the size
 * of the base.
 */
import { type RecordBatch, Table } from 'apache-arrow';
import { type KeyCodec, keyCodecFor } from '../arrow/key-codec.ts';
import { keyColumns } from '../arrow/schema.ts';
import { takeRows } from '../arrow/take.ts';
import { rangePredicate } from '../base/key-predicate.ts';
import { scanBase } from '../base/pinned-read.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import { FULL_RANGE, type KeyBound, type KeyRange, rangeId } from './key-range.ts';
import { type OverlayOrder, seekKey } from './overlay-order.ts';
import { projectRows, type RowRef } from './project-rows.ts';
import { project, projectionOf } from './projection.ts';
import { type ReadDeps, type ReadSnapshot, readSnapshot } from './read-snapshot.ts';
import { andVisible, cutoffOf } from './retention-cutoff.ts';
import { decodeScanCursor, encodeScanCursor, type ScanCursor } from './scan-cursor.ts';
import type { SortedRun } from './sorted-run.ts';

export interface ScanPage {
  rows: Table;
  /** Cursor for the next page, or null when this page reached the end. */
  next: string | null;
}

export interface ScanOptions {
  limit: number;
  after?: string | null;
  range?: KeyRange;
  /** The columns to answer, in this order; all of them when absent. */
  columns?: readonly string[] | null;
  /** How long a cursor stays usable: the GC grace period, after which its pinned versions may go. */
  cursorTtlMs: number;
  now?: number;
  /** Only the rows a filter passes: the newest value of a key decides. */
  filter?: ScanFilter;
}

/** A row filter a scan applies to the base (a Lance filter) and to the overlay (a test per run row). */
export interface ScanFilter {
  /** Names the filter in the cursor, so every page asks for the same one (hex). */
  id: string;
  where: string;
  /** Whether row `i` of run `r` of the snapshot passes. */
  prepare(snapshot: ReadSnapshot): Promise<(r: number, i: number) => boolean>;
}

export async function scanRows(
  deps: ReadDeps,
  table: TableDef,
  options: ScanOptions,
  signal?: AbortSignal,
): Promise<ScanPage> {
  const now = options.now ?? Date.now();
  const range = options.range ?? FULL_RANGE;
  const projection = projectionOf(table, options.columns);
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const cursor = options.after ? decodeScanCursor(options.after, table) : null;
  const filterId = options.filter?.id ?? null;
  if (cursor && cursor.filter !== filterId) {
    throw new SluiceError(
      'INVALID_CURSOR',
      'the scan cursor belongs to a scan with another filter; pass the same filter as on its first page',
      { table: table.name },
    );
  }
  if (cursor && rangeId(range).join() !== cursor.range.join()) {
    throw new SluiceError(
      'INVALID_CURSOR',
      'the scan cursor belongs to a scan of another key range; pass the same from and to as on its first page',
      { table: table.name },
    );
  }
  if (cursor && now - cursor.pinnedAt > options.cursorTtlMs) {
    throw new SluiceError(
      'CURSOR_EXPIRED',
      'the scan cursor is older than the GC grace period; scan again without after',
      {
        table: table.name,
        pinnedAt: new Date(cursor.pinnedAt).toISOString(),
      },
    );
  }
  if (cursor) assertHonestCutoff(table, cursor, deps.clock(), options.cursorTtlMs);
  const snapshot = await readSnapshot(deps, table, shards, { signal, pin: cursor?.pin });
  const state: ScanCursor = cursor ?? {
    pin: snapshot.pin,
    pinnedAt: now,
    afterKey: null,
    baseOffset: 0,
    phase: 'overlay',
    range: rangeId(range),
    filter: filterId,
  };
  const batches: RecordBatch[] = [];
  let taken = 0;
  if (state.phase === 'overlay') {
    const passes = options.filter ? await options.filter.prepare(snapshot) : () => true;
    const page = overlayPage(
      table,
      snapshot.runs,
      deps.overlays.orderOf(table, snapshot),
      { afterKey: state.afterKey, range, passes },
      options.limit,
    );
    batches.push(...project(page.rows, projection.read).batches);
    taken += page.rows.numRows;
    if (page.lastKey) state.afterKey = page.lastKey;
    else state.phase = 'base';
  }
  let baseDone = snapshot.base.lanceVersion === null;
  if (state.phase === 'base' && !baseDone && taken < options.limit) {
    // None on an append-only table, whose pending rows are all new rows (snapshot-overlay.ts).
    const shadowed = deps.overlays.of(table, snapshot).keys;
    const codec = keyCodecFor(table.schema);
    const where = andVisible(
      table,
      snapshot.cutoff,
      bothOf(
        rangePredicate(keyColumns(table.schema), range.from?.values ?? null, range.to?.values ?? null),
        options.filter?.where ?? null,
      ),
    );
    while (taken < options.limit && !baseDone) {
      const want = options.limit - taken;
      const rows = await scanBase(
        deps.datasets,
        table,
        snapshot.base.lanceVersion!,
        { offset: state.baseOffset, limit: want },
        { where, schema: projection.read },
      ).catch((err: unknown) => {
        throw isSluiceError(err, 'DATA_MISSING') ? expiredCursor(table) : err;
      });
      const fetched = rows.reduce((sum, b) => sum + b.numRows, 0);
      state.baseOffset += fetched;
      baseDone = fetched < want;
      for (const batch of rows) {
        const kept = withoutShadowed(batch, codec, shadowed);
        if (kept.numRows === 0) continue;
        batches.push(kept);
        taken += kept.numRows;
      }
    }
  }
  const ended = state.phase === 'base' && baseDone;
  const rows = project(new Table(projection.read, batches), projection.out);
  return { rows, next: ended ? null : encodeScanCursor(state) };
}

/**
 * A cursor's cutoff is at most its age older than a fresh one: an older one, forged, would
 * show rows past retention that the base still holds.
 */
function assertHonestCutoff(table: TableDef, cursor: ScanCursor, now: number, ttlMs: number): void {
  const fresh = cutoffOf(table, now);
  const pinned = cursor.pin.cutoff;
  if (fresh === null && pinned === null) return;
  if (fresh !== null && pinned !== null && pinned >= fresh - ttlMs) return;
  throw new SluiceError(
    'INVALID_CURSOR',
    'the scan cursor is malformed; pass the `next` of the previous page',
    {
      table: table.name,
    },
  );
}

/** The base rows the overlay does not supersede; with nothing pending, no key is encoded. */
function withoutShadowed(batch: RecordBatch, codec: KeyCodec, shadowed: Set<string>): RecordBatch {
  if (shadowed.size === 0) return batch;
  const keys = codec.encodeRows(batch);
  const live = keys.flatMap((k, i) => (shadowed.has(Buffer.from(k).toString('hex')) ? [] : [i]));
  return live.length === batch.numRows ? batch : takeRows([batch], live);
}

function bothOf(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null ? a : `(${a}) AND (${b})`;
}

/** The cursor outlived the GC grace period, so the versions it pinned may be gone. */
function expiredCursor(table: TableDef): SluiceError {
  return new SluiceError(
    'CURSOR_EXPIRED',
    'the scan cursor is older than the GC grace period and its snapshot is gone; scan again without after',
    { table: table.name },
  );
}

/**
 * Up to `limit` live overlay rows of the range after `afterKey` (or from the range's start), in
 * key order, sliced from the snapshot's overlay merged once (overlay-order.ts); `lastKey` is
 * null when the overlay has no row of the range left after them.
 */
function overlayPage(
  table: TableDef,
  runs: SortedRun[],
  order: OverlayOrder,
  {
    afterKey,
    range,
    passes,
  }: { afterKey: string | null; range: KeyRange; passes: (r: number, i: number) => boolean },
  limit: number,
): { rows: Table; lastKey: string | null } {
  const hexOf = (bound: KeyBound | null) => (bound ? Buffer.from(bound.encoded).toString('hex') : null);
  const from = hexOf(range.from);
  const start = afterKey !== null ? seekKey(order, afterKey, true) : from !== null ? seekKey(order, from) : 0;
  const to = hexOf(range.to);
  const end = to === null ? order.keys.length : seekKey(order, to);
  const refs: RowRef[] = [];
  let at = start;
  for (; at < end && refs.length < limit; at++) {
    const run = runs[order.runs[at]!]!;
    const row = order.rows[at]!;
    if (passes(order.runs[at]!, row)) refs.push({ batches: run.batches, position: run.position(row) });
  }
  const more = refs.length === limit && at < end;
  return { rows: projectRows(table, refs), lastKey: more ? order.keys[at - 1]! : null };
}

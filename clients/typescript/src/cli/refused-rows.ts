/**
 * A load's batch sent, and what happens when the server refuses rows of it (`INVALID_ROWS`
 * names each refused row within the batch, in `details.rows`, or the first one alone): with
 * `--on-error stop` the load stops with the first row's place in the file; with `skip` the
 * refused rows are set aside as rejects and the rest of the batch is sent again, under a
 * key of its own (the batch's key and the count of rows set aside), so a resumed load that
 * cuts the same batch sends the same requests and none lands twice.
 */
import { type Table, tableToIPC } from 'apache-arrow';
import { ARROW_STREAM, jsonBatches } from '../batches.ts';
import type { SluiceClient } from '../client.ts';
import { isSluiceApiError, type SluiceApiError } from '../errors.ts';
import { type PlaceUnit, placeOf, spanOf } from './places.ts';
import type { Reject } from './rejects.ts';
import type { BatchRows, SourceBatch } from './sources.ts';
import { UsageError } from './usage-error.ts';

export type OnError = 'stop' | 'skip';

export interface SentBatch {
  replayed: boolean;
  rows: number;
  rejects: Reject[];
}

export interface BatchTarget {
  client: SluiceClient;
  table: string;
  file: string;
  unit: PlaceUnit;
  onError: OnError;
}

export async function sendBatch(target: BatchTarget, batch: SourceBatch, key: string): Promise<SentBatch> {
  const malformed = batch.malformed.map(({ place, malformed: reason, text }) => ({
    place,
    code: 'MALFORMED',
    reason,
    values: text,
  }));
  if (batch.rows === 0) return { replayed: false, rows: 0, rejects: malformed };
  const rejects: Reject[] = [];
  let current = batch;
  for (;;) {
    const attemptKey = rejects.length === 0 ? key : `${key}-without-${rejects.length}`;
    try {
      const { replayed } = await target.client.writeBatch(target.table, current, attemptKey);
      return { replayed, rows: current.rows, rejects: [...malformed, ...rejects] };
    } catch (err) {
      const refused = refusedRows(err);
      if (refused.length === 0) throw located(err, target, current);
      const { code } = err as SluiceApiError;
      if (target.onError === 'stop') {
        const first = refused[0]!;
        throw new UsageError(
          `${placeOf(target.file, target.unit, current.places[first.row]!)}: ${code}: ${first.reason}`,
        );
      }
      for (const { row, reason } of refused) {
        rejects.push({ place: current.places[row]!, code, reason, values: valuesOf(current.source, row) });
      }
      if (refused.length === current.rows)
        return { replayed: false, rows: 0, rejects: [...malformed, ...rejects] };
      current = without(current, new Set(refused.map((r) => r.row)));
    }
  }
}

/** A refusal of the whole batch (a column of a type that cannot map) names the rows it holds. */
function located(err: unknown, target: BatchTarget, batch: SourceBatch): unknown {
  if (!isSluiceApiError(err, 'INVALID_ROWS')) return err;
  const span = spanOf(target.file, target.unit, batch.places[0]!, batch.places[batch.places.length - 1]!);
  return new UsageError(`${span}: ${err.code}: ${err.message}`);
}

interface RefusedRow {
  row: number;
  reason: string;
}

/**
 * The rows of the batch the server refused, in row order: every one it names in
 * `details.rows`, or the one of `details.row`; none when the refusal is not rows'.
 */
function refusedRows(err: unknown): RefusedRow[] {
  if (!isSluiceApiError(err, 'INVALID_ROWS')) return [];
  const named = Array.isArray(err.details.rows)
    ? err.details.rows
    : [{ ...err.details, message: err.message }];
  return named.flatMap((entry: { row?: unknown; message?: unknown }) =>
    isRowIndex(entry.row) && typeof entry.message === 'string'
      ? [{ row: entry.row, reason: reasonOf(entry.message) }]
      : [],
  );
}

function isRowIndex(row: unknown): row is number {
  return typeof row === 'number' && Number.isInteger(row) && row >= 0;
}

/** The API's message without its `row N: ` prefix, which counts within the batch. */
function reasonOf(message: string): string {
  return message.replace(/^row \d+: /, '');
}

function valuesOf(source: BatchRows, row: number): unknown {
  return source.kind === 'json' ? source.rows[row] : source.table.get(row)?.toJSON();
}

function without(batch: SourceBatch, refused: ReadonlySet<number>): SourceBatch {
  const kept = (_: unknown, i: number) => !refused.has(i);
  const places = batch.places.filter(kept);
  if (batch.source.kind === 'json') {
    const rows = batch.source.rows.filter(kept);
    const [body] = jsonBatches(rows, { maxRows: rows.length, maxBytes: Number.POSITIVE_INFINITY });
    return { ...batch, ...body!, places, source: { kind: 'json', rows } };
  }
  const { table } = batch.source;
  const rest: Table = keptRows(table, refused);
  const body = tableToIPC(rest, 'stream');
  return {
    ...batch,
    rows: rest.numRows,
    body,
    contentType: ARROW_STREAM,
    places,
    source: { kind: 'arrow', table: rest },
  };
}

/** The table without the refused rows: the runs between them, sliced and put together. */
function keptRows(table: Table, refused: ReadonlySet<number>): Table {
  const cuts = [...refused].sort((a, b) => a - b);
  const runs: Table[] = [];
  let from = 0;
  for (const row of cuts) {
    if (row > from) runs.push(table.slice(from, row));
    from = row + 1;
  }
  if (from < table.numRows) runs.push(table.slice(from));
  const [first, ...rest] = runs;
  return first ? first.concat(...rest) : table.slice(0, 0);
}

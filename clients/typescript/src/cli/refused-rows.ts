/**
 * A load's batch sent, and what happens when the server refuses one of its rows
 * (`INVALID_ROWS` names the row within the batch): with `--on-error stop` the load stops
 * with the row's place in the file; with `skip` the row is set aside as a reject and the
 * rest of the batch is sent again, under a key of its own (the batch's key and the count
 * of rows set aside), so a resumed load that cuts the same batch sends the same requests
 * and none lands twice.
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
      const row = refusedRow(err);
      if (row === null) throw located(err, target, current);
      const place = placeOf(target.file, target.unit, current.places[row]!);
      const reason = reasonOf(err as SluiceApiError);
      if (target.onError === 'stop')
        throw new UsageError(`${place}: ${(err as SluiceApiError).code}: ${reason}`);
      rejects.push({
        place: current.places[row]!,
        code: (err as SluiceApiError).code,
        reason,
        values: valuesOf(current.source, row),
      });
      if (current.rows === 1) return { replayed: false, rows: 0, rejects: [...malformed, ...rejects] };
      current = without(current, row);
    }
  }
}

/** A refusal of the whole batch (a column of a type that cannot map) names the rows it holds. */
function located(err: unknown, target: BatchTarget, batch: SourceBatch): unknown {
  if (!isSluiceApiError(err, 'INVALID_ROWS')) return err;
  const span = spanOf(target.file, target.unit, batch.places[0]!, batch.places[batch.places.length - 1]!);
  return new UsageError(`${span}: ${err.code}: ${err.message}`);
}

/** The row of the batch the server refused, or null when the refusal is not one row's. */
function refusedRow(err: unknown): number | null {
  if (!isSluiceApiError(err, 'INVALID_ROWS')) return null;
  const row = err.details.row;
  return typeof row === 'number' && Number.isInteger(row) && row >= 0 ? row : null;
}

/** The API's message without its `row N: ` prefix, which counts within the batch. */
function reasonOf(err: SluiceApiError): string {
  return err.message.replace(/^row \d+: /, '');
}

function valuesOf(source: BatchRows, row: number): unknown {
  return source.kind === 'json' ? source.rows[row] : source.table.get(row)?.toJSON();
}

function without(batch: SourceBatch, row: number): SourceBatch {
  const places = batch.places.filter((_, i) => i !== row);
  if (batch.source.kind === 'json') {
    const rows = batch.source.rows.filter((_, i) => i !== row);
    const [body] = jsonBatches(rows, { maxRows: rows.length, maxBytes: Number.POSITIVE_INFINITY });
    return { ...batch, ...body!, places, source: { kind: 'json', rows } };
  }
  const { table } = batch.source;
  const rest: Table = table.slice(0, row).concat(table.slice(row + 1));
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

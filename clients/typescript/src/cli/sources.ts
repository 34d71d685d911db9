/**
 * A load's input as a sequence of numbered batches, each with the input position reached
 * after it and the place in the file of each of its rows (places.ts): CSV with a header
 * line, JSON lines, a JSON array, an Arrow IPC file or stream, or Parquet; text formats
 * and Arrow also gzipped (`.gz`) or from standard input (`-`). The same file always gives
 * the same batches, which is what makes a load resumable.
 */
import { extname } from 'node:path';
import type { Table } from 'apache-arrow';
import { arrowBatches, type Batch, type BatchLimits, jsonBatches } from '../batches.ts';
import type { Row } from '../types.ts';
import { arrowTables, type ColumnarSource, parquetTables } from './arrow-sources.ts';
import type { Column } from './csv-values.ts';
import { innerName, openInput } from './input.ts';
import type { PlaceUnit } from './places.ts';
import {
  csvRows,
  isMalformed,
  jsonArrayRows,
  jsonLines,
  type MalformedLine,
  type Placed,
  type PlacedRow,
} from './text-rows.ts';

export const FILE_FORMATS = ['csv', 'jsonl', 'json', 'arrow', 'parquet'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

const EXTENSIONS: Record<string, FileFormat> = {
  '.csv': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'json',
  '.arrow': 'arrow',
  '.arrows': 'arrow',
  '.feather': 'arrow',
  '.parquet': 'parquet',
};

/** The rows of a batch again, so it can be sent without one the server refused. */
export type BatchRows = { kind: 'json'; rows: readonly Row[] } | { kind: 'arrow'; table: Table };

export interface SourceBatch extends Batch {
  index: number;
  /** Bytes of the input read once this batch is cut. */
  position: number;
  /** Each row's place in the file, in the batch's order. */
  places: readonly number[];
  source: BatchRows;
  /** Lines before and among its rows that were not rows (`skip` only): rejects from the start. */
  malformed: readonly MalformedLine[];
}

export interface Source {
  unit: PlaceUnit;
  batches: AsyncGenerator<SourceBatch>;
}

export function formatOf(path: string): FileFormat | null {
  return EXTENSIONS[extname(innerName(path)).toLowerCase()] ?? null;
}

/** `skip`: a malformed line is set aside in its batch (`malformed`) instead of ending the load. */
export function readSource(
  path: string,
  format: FileFormat,
  columns: readonly Column[],
  limits: BatchLimits,
  skip: boolean,
): Source {
  if (format === 'arrow' || format === 'parquet') {
    const tables = format === 'arrow' ? arrowTables(path, () => openInput(path)) : parquetTables(path);
    return { unit: 'row', batches: tableBatches(tables, limits) };
  }
  const input = openInput(path);
  const rows =
    format === 'csv'
      ? csvRows(path, input, columns, skip)
      : format === 'jsonl'
        ? jsonLines(path, input, skip)
        : jsonArrayRows(path, input, skip);
  return { unit: format === 'json' ? 'row' : 'line', batches: rowBatches(rows, input.consumed, limits) };
}

/**
 * Rows gathered into batches; a batch's size bound is checked on its encoded body. Malformed
 * lines ride with the first batch cut after them (a batch of no rows at the end, if none is).
 */
async function* rowBatches(
  items: AsyncIterable<Placed>,
  consumed: () => number,
  limits: BatchLimits,
): AsyncGenerator<SourceBatch> {
  let index = 0;
  let pending: PlacedRow[] = [];
  let malformed: MalformedLine[] = [];
  const cut = function* (): Generator<SourceBatch> {
    const position = consumed();
    let at = 0;
    const rows = pending.map((p) => p.row);
    const batches = rows.length === 0 ? [jsonBatchOfNone()] : jsonBatches(rows, limits);
    for (const batch of batches) {
      const taken = pending.slice(at, at + batch.rows);
      at += batch.rows;
      yield {
        ...batch,
        index: index++,
        position,
        places: taken.map((p) => p.place),
        source: { kind: 'json', rows: taken.map((p) => p.row) },
        malformed,
      };
      malformed = [];
    }
    pending = [];
  };
  for await (const item of items) {
    if (isMalformed(item)) malformed.push(item);
    else pending.push(item);
    if (pending.length >= limits.maxRows) yield* cut();
  }
  if (pending.length > 0 || malformed.length > 0) yield* cut();
}

/** A batch that sends nothing: the malformed lines at the end of a file go in it. */
function jsonBatchOfNone(): Batch {
  return { rows: 0, body: new Uint8Array(), contentType: 'application/json' };
}

/**
 * The tables' rows in batches of `maxRows`, whatever the file's own record batches: Parquet
 * readers and many Arrow writers make batches of about a thousand rows, and sent one by one
 * they cost a request each.
 */
async function* tableBatches(source: ColumnarSource, limits: BatchLimits): AsyncGenerator<SourceBatch> {
  let index = 0;
  let place = 1;
  const cut = function* (rows: Table): Generator<SourceBatch> {
    let at = 0;
    for (const batch of arrowBatches(rows, limits)) {
      const places = Array.from({ length: batch.rows }, (_, i) => place + i);
      const slice = rows.slice(at, at + batch.rows);
      at += batch.rows;
      place += batch.rows;
      yield {
        ...batch,
        index: index++,
        position: source.consumed(),
        places,
        source: { kind: 'arrow', table: slice },
        malformed: [],
      };
    }
  };
  let pending: Table | null = null;
  for await (const table of source.tables) {
    pending = pending === null ? table : pending.concat(table);
    const whole = pending.numRows - (pending.numRows % limits.maxRows);
    if (whole === 0) continue;
    yield* cut(pending.slice(0, whole));
    pending = pending.slice(whole);
  }
  if (pending !== null && pending.numRows > 0) yield* cut(pending);
}

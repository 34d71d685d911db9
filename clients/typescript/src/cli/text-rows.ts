/**
 * The rows of the text formats, each with its place in the file: CSV with a header line and
 * JSON lines by the file's line, a JSON array by the element's number. A line that is not
 * CSV or JSON is a UsageError naming the file and the place, never a stack trace.
 */
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { Row } from '../types.ts';
import { type Column, csvRowConverter } from './csv-values.ts';
import type { Input } from './input.ts';
import { JsonArrayError, jsonArrayElements } from './json-array.ts';
import { placeOf } from './places.ts';
import { UsageError } from './usage-error.ts';

export interface PlacedRow {
  row: Row;
  /** The line (CSV, JSON lines) or row number (JSON array) of the row, from 1. */
  place: number;
}

export async function* csvRows(
  path: string,
  input: Input,
  columns: readonly Column[],
): AsyncGenerator<PlacedRow> {
  const toRow = csvRowConverter(columns);
  const parser = input.stream.pipe(parse({ columns: true, info: true, bom: true }));
  input.stream.on('error', (err) => parser.destroy(err));
  // A quoted field may span lines: a record's place is the line it starts on, after the last one's end.
  let ended = 1;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield { row: toRow(record), place: ended + 1 };
      ended = info.lines;
    }
  } catch (err) {
    // csv-parse names the line it stopped at; the file's line is what a user can fix.
    const line = (err as { lines?: unknown }).lines;
    if (typeof line !== 'number') throw err;
    throw new UsageError(`${placeOf(path, 'line', line)}: not CSV: ${(err as Error).message}`);
  }
}

export async function* jsonLines(path: string, input: Input): AsyncGenerator<PlacedRow> {
  const lines = createInterface({ input: input.stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = line === 1 ? raw.replace(/^\ufeff/, '') : raw;
    if (text.trim() === '') continue;
    try {
      yield { row: JSON.parse(text) as Row, place: line };
    } catch (err) {
      throw new UsageError(`${placeOf(path, 'line', line)}: not JSON: ${(err as Error).message}`);
    }
  }
}

export async function* jsonArrayRows(path: string, input: Input): AsyncGenerator<PlacedRow> {
  let place = 0;
  try {
    for await (const row of jsonArrayElements(input.stream)) {
      place++;
      yield { row: row as Row, place };
    }
  } catch (err) {
    if (!(err instanceof JsonArrayError)) throw err;
    const where = err.element === 0 ? path : placeOf(path, 'row', err.element);
    throw new UsageError(`${where}: ${err.message}`);
  }
}

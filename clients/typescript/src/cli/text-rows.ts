/**
 * The rows of the text formats, each with its place in the file: CSV with a header line and
 * JSON lines by the file's line, a JSON array by the element's number. A line that is not
 * CSV or JSON is a UsageError naming the file and the place, never a stack trace; or, when
 * the load sets bad records aside (`skip`), a malformed item in its place, which the load
 * writes to the rejects file.
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

/** A line that is not a row: what was wrong, and its text when the reader has it. */
export interface MalformedLine {
  malformed: string;
  place: number;
  text: string | null;
}

export type Placed = PlacedRow | MalformedLine;

export function isMalformed(item: Placed): item is MalformedLine {
  return 'malformed' in item;
}

export async function* csvRows(
  path: string,
  input: Input,
  columns: readonly Column[],
  skip: boolean,
): AsyncGenerator<Placed> {
  const toRow = csvRowConverter(columns);
  const skipped: MalformedLine[] = [];
  const parser = input.stream.pipe(
    parse({
      columns: true,
      info: true,
      bom: true,
      skip_records_with_error: skip,
      on_skip: (err, raw) => {
        skipped.push({
          malformed: `not CSV: ${err?.message ?? 'a malformed record'}`,
          place: typeof err?.lines === 'number' ? err.lines : 0,
          text: raw ?? null,
        });
        return undefined;
      },
      raw: skip,
    }),
  );
  input.stream.on('error', (err) => parser.destroy(err));
  // A quoted field may span lines: a record's place is the line it starts on, after the last one's end.
  let ended = 1;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield* skipped.splice(0);
      yield { row: toRow(record), place: ended + 1 };
      ended = info.lines;
    }
    yield* skipped.splice(0);
  } catch (err) {
    // csv-parse names the line it stopped at; the file's line is what a user can fix.
    const line = (err as { lines?: unknown }).lines;
    if (typeof line !== 'number') throw err;
    throw new UsageError(`${placeOf(path, 'line', line)}: not CSV: ${(err as Error).message}`);
  }
}

export async function* jsonLines(path: string, input: Input, skip: boolean): AsyncGenerator<Placed> {
  const lines = createInterface({ input: input.stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = line === 1 ? raw.replace(/^\ufeff/, '') : raw;
    if (text.trim() === '') continue;
    let row: Row;
    try {
      row = JSON.parse(text) as Row;
    } catch (err) {
      const malformed = `not JSON: ${(err as Error).message}`;
      if (!skip) throw new UsageError(`${placeOf(path, 'line', line)}: ${malformed}`);
      yield { malformed, place: line, text };
      continue;
    }
    yield { row, place: line };
  }
}

export async function* jsonArrayRows(path: string, input: Input, skip: boolean): AsyncGenerator<Placed> {
  let place = 0;
  try {
    for await (const element of jsonArrayElements(input.stream)) {
      place++;
      if (!(element instanceof JsonArrayError)) yield { row: element as Row, place };
      else if (skip) yield { malformed: element.message, place, text: null };
      else throw element;
    }
  } catch (err) {
    if (!(err instanceof JsonArrayError)) throw err;
    const where = err.element === 0 ? path : placeOf(path, 'row', err.element);
    throw new UsageError(`${where}: ${err.message}`);
  }
}

/**
 * A file to load as a sequence of numbered batches, each with the file position reached
 * after it: CSV with a header line, JSON lines, or an Arrow IPC file or stream. The same
 * file always gives the same batches, which is what makes a load resumable.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { RecordBatchReader, Table } from 'apache-arrow';
import { parse } from 'csv-parse';
import { arrowBatches, type Batch, type BatchLimits, jsonBatches } from '../batches.ts';
import type { Row } from '../types.ts';
import { type Column, csvRowConverter } from './csv-values.ts';
import { UsageError } from './usage-error.ts';

export type FileFormat = 'csv' | 'jsonl' | 'arrow';

export interface SourceBatch extends Batch {
  index: number;
  /** Bytes of the file read once this batch is cut. */
  position: number;
}

export function formatOf(path: string): FileFormat | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.arrow' || ext === '.arrows' || ext === '.feather') return 'arrow';
  return null;
}

export function readBatches(
  path: string,
  format: FileFormat,
  columns: readonly Column[],
  limits: BatchLimits,
): AsyncGenerator<SourceBatch> {
  if (format === 'arrow') return arrowFileBatches(path, limits);
  const rows = format === 'csv' ? csvRows(path, columns) : jsonLines(path);
  return rowBatches(rows, limits);
}

interface PositionedRow {
  row: Row;
  position: number;
}

async function* csvRows(path: string, columns: readonly Column[]): AsyncGenerator<PositionedRow> {
  const toRow = csvRowConverter(columns);
  const parser = createReadStream(path).pipe(parse({ columns: true, info: true, bom: true }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { bytes: number };
    }>) {
      yield { row: toRow(record), position: info.bytes };
    }
  } catch (err) {
    // csv-parse names the line it stopped at; the file's line is what a user can fix.
    const line = (err as { lines?: unknown }).lines;
    if (typeof line !== 'number') throw err;
    throw new UsageError(`${path}:${line}: not CSV: ${(err as Error).message}`);
  }
}

async function* jsonLines(path: string): AsyncGenerator<PositionedRow> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let position = 0;
  let line = 0;
  for await (const text of lines) {
    line++;
    position += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    try {
      yield { row: JSON.parse(text) as Row, position };
    } catch (err) {
      throw new UsageError(`${path}:${line}: not JSON: ${(err as Error).message}`);
    }
  }
}

/** Rows gathered into batches; a batch's size bound is checked on its encoded body. */
async function* rowBatches(
  rows: AsyncIterable<PositionedRow>,
  limits: BatchLimits,
): AsyncGenerator<SourceBatch> {
  let index = 0;
  let pending: Row[] = [];
  let position = 0;
  const cut = function* (): Generator<SourceBatch> {
    for (const batch of jsonBatches(pending, limits)) yield { ...batch, index: index++, position };
    pending = [];
  };
  for await (const item of rows) {
    pending.push(item.row);
    position = item.position;
    if (pending.length >= limits.maxRows) yield* cut();
  }
  if (pending.length > 0) yield* cut();
}

async function* arrowFileBatches(path: string, limits: BatchLimits): AsyncGenerator<SourceBatch> {
  const handle = await open(path);
  try {
    const size = (await handle.stat()).size;
    const reader = await RecordBatchReader.from(handle);
    let index = 0;
    let position = 0;
    for await (const recordBatch of reader) {
      for (const batch of arrowBatches(new Table(recordBatch), limits)) {
        position = Math.min(size, position + batch.body.byteLength);
        yield { ...batch, index: index++, position };
      }
    }
  } finally {
    await handle.close();
  }
}

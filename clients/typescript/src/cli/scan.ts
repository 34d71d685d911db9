/**
 * `sluice scan <table> --format jsonl|csv|arrow [--columns a,b] [--from K] [--to K]`: every
 * row (of the key range, in the columns asked) to stdout, pending rows in primary-key order,
 * then the base in its storage order.
 */
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RecordBatchStreamWriter } from 'apache-arrow';
import { stringify } from 'csv-stringify';
import type { ScanOptions, SluiceClient } from '../client.ts';
import type { Row } from '../types.ts';

export type ScanFormat = 'jsonl' | 'csv' | 'arrow';

/** What to scan: the page size, and optionally the columns and the key range. */
export type ScanChoice = Pick<ScanOptions, 'pageSize' | 'columns' | 'from' | 'to'>;

export async function scan(
  client: SluiceClient,
  table: string,
  format: ScanFormat,
  choice: ScanChoice,
  out: Writable = process.stdout,
): Promise<void> {
  if (format === 'arrow') return scanArrow(client, table, choice, out);
  const rows = client.scan(table, choice);
  if (format === 'jsonl') {
    return pipeline(async function* () {
      for await (const row of rows) yield `${JSON.stringify(row)}\n`;
    }, out);
  }
  const columns = choice.columns ?? (await client.describeTable(table)).schema.fields.map((f) => f.name);
  const cells = async function* () {
    for await (const row of rows) yield columns.map((name) => cellOf(row, name));
  };
  return pipeline(
    cells,
    stringify({ header: true, columns, cast: { boolean: (value) => String(value) } }),
    out,
  );
}

/** Nested values (vectors) as JSON text and booleans as true/false: the forms `sluice load` reads back. */
function cellOf(row: Row, name: string): unknown {
  const value = row[name];
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

async function scanArrow(
  client: SluiceClient,
  table: string,
  choice: ScanChoice,
  out: Writable,
): Promise<void> {
  const writer = new RecordBatchStreamWriter();
  const written = pipeline(writer.toNodeStream(), out);
  for await (const batch of client.scanBatches(table, choice)) writer.write(batch);
  writer.finish();
  await written;
}

/** `sluice scan <table> --format jsonl|csv|arrow`: every row, in primary-key order, to stdout. */
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RecordBatchStreamWriter } from 'apache-arrow';
import { stringify } from 'csv-stringify';
import type { SluiceClient } from '../client.ts';
import type { Row } from '../types.ts';

export type ScanFormat = 'jsonl' | 'csv' | 'arrow';

export async function scan(
  client: SluiceClient,
  table: string,
  format: ScanFormat,
  pageSize: number,
  out: Writable = process.stdout,
): Promise<void> {
  if (format === 'arrow') return scanArrow(client, table, pageSize, out);
  const rows = client.scan(table, { pageSize });
  if (format === 'jsonl') {
    return pipeline(async function* () {
      for await (const row of rows) yield `${JSON.stringify(row)}\n`;
    }, out);
  }
  const { schema } = await client.describeTable(table);
  const columns = schema.fields.map((f) => f.name);
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
  pageSize: number,
  out: Writable,
): Promise<void> {
  const writer = new RecordBatchStreamWriter();
  const written = pipeline(writer.toNodeStream(), out);
  for await (const batch of client.scanBatches(table, { pageSize })) writer.write(batch);
  writer.finish();
  await written;
}

/**
 * Rows as reads answer them: JSON in the forms writes accept (int64 and timestamps beyond
 * 2^53 as decimal strings, binary as base64, non-finite floats as "NaN"/"Infinity"), or an
 * Arrow stream when the client accepts one.
 */
import { Schema, Table } from 'apache-arrow';
import { encodeIpcStream } from '../shared/arrow/ipc.ts';
import { type JsonRow, tableToJsonRows } from '../shared/arrow/json-rows.ts';
import type { Lookup } from '../shared/read/point-lookup.ts';
import type { TableDef } from '../shared/table/table-def.ts';
import { ARROW_STREAM } from './body.ts';
import type { Ctx } from './request.ts';

/** Rows in JSON, in the columns (and order) they carry: all of the table's, or a projection. */
export function jsonRows(def: TableDef, rows: Table): JsonRow[] {
  const fields = rows.schema.fields.map((f) => def.schema.fields.find((field) => field.name === f.name)!);
  return tableToJsonRows({ ...def.schema, fields }, rows);
}

export function wantsArrow(c: Ctx): boolean {
  return (c.req.header('accept') ?? '').toLowerCase().includes(ARROW_STREAM);
}

/** Found rows as an Arrow stream; the keys with no row go in the schema's `sluice.missing` metadata, as JSON. */
export function lookupArrowResponse(c: Ctx, found: Lookup): Response {
  const metadata = new Map([['sluice.missing', JSON.stringify(found.missing)]]);
  const schema = new Schema(found.rows.schema.fields, metadata);
  return arrowResponse(c, new Table(schema, found.rows.batches));
}

export function arrowResponse(c: Ctx, rows: Table): Response {
  // tableToIPC allocates a plain ArrayBuffer; only its declared type allows a shared one.
  const bytes = encodeIpcStream(rows) as Uint8Array<ArrayBuffer>;
  return c.body(bytes, 200, { 'Content-Type': ARROW_STREAM });
}

/**
 * Request bodies: the size limit, enforced while reading (a body larger than the limit is
 * refused as soon as it passes it, never buffered whole); the content-type dispatch; and
 * the JSON envelopes, parsed by the wire schemas the OpenAPI document is built from. Rows,
 * keys and table definitions themselves are validated by the domain (I9).
 */

import type { z } from '@hono/zod-openapi';
import type { RecordBatch, Table } from 'apache-arrow';
import { decodeArrowStreamForTable } from '../shared/arrow/ipc.ts';
import { jsonRowsToRecordBatch } from '../shared/arrow/json-rows.ts';
import type { Config } from '../shared/config.ts';
import { isSluiceError, SluiceError } from '../shared/errors.ts';
import { SCHEMA_CHANGE_BODY } from '../shared/table/schema-change.ts';
import type { TableDef } from '../shared/table/table-def.ts';
import {
  CreateTableSchema,
  DrainBodySchema,
  KeysBodySchema,
  RowsBodySchema,
  SearchBodySchema,
} from './openapi/schemas.ts';
import { parseWire } from './openapi/wire-input.ts';
import type { Ctx } from './request.ts';

const JSON_TYPE = 'application/json';
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';

export type Limits = Config['limits'];

export interface Body<T> {
  value: T;
  /** The bytes as received: what an Idempotency-Key compares. */
  raw: Uint8Array;
  mediaType: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function mediaTypeOf(c: Ctx): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function unsupported(got: string, accepted: string[]): SluiceError {
  return new SluiceError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Content-Type ${got ? `"${got.slice(0, 100)}"` : 'is missing'}; send ${accepted.join(' or ')}`,
    { accepted },
  );
}

function tooLarge(maxBytes: number): SluiceError {
  return new SluiceError('PAYLOAD_TOO_LARGE', `the body is larger than ${maxBytes} bytes`, { maxBytes });
}

function tooManyRows(count: number, max: number): SluiceError {
  return new SluiceError('TOO_MANY_ROWS', `${count} rows in one request; at most ${max}`, { count, max });
}

/** What each route's body must be, as its refusals tell the client to send. */
const ROWS_BODY =
  '{"rows":[{…},…]} as application/json, or an Arrow IPC stream as application/vnd.apache.arrow.stream';
const KEYS_BODY =
  '{"keys":[…]} (each key the value of a one-column primary key, or an array in primary-key order)';
const CREATE_BODY =
  '{"name":…,"schema":{"fields":[{"name":…,"type":…},…]},"primaryKey":[…]} with optional "shards", "settings", "indexes", "retention" and "walLane" (no "primaryKey", or [], for an append-only table)';
const DRAIN_BODY = '{"drain": true} or {"drain": false}';
const INDEX_BODY =
  '{"column":…,"type":"btree"|"bitmap"|"ivf_pq"|"ivf_hnsw_sq"|"fts"} with optional "metric" and "params"';

const SEARCH_BODY =
  '{"vector":[…],"k":10} or {"text":…,"k":10}, either with optional "filter" (Lance SQL), "columns", "column", "metric", "nprobes", "refineFactor", "textColumn" and "withDistance"; or a "filter" alone';

async function readBytes(c: Ctx, maxBytes: number, send: string): Promise<Uint8Array> {
  if (Number(c.req.header('content-length') ?? 0) > maxBytes) throw tooLarge(maxBytes);
  const stream = c.req.raw.body;
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (stream) {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  if (total === 0) throw new SluiceError('INVALID_REQUEST', `the request body is empty: send ${send}`);
  // One fresh buffer at offset 0: Arrow views int64 columns in place, which needs alignment.
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function parseJson(raw: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(raw));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SluiceError('INVALID_REQUEST', `the body is not valid JSON: ${reason.slice(0, 200)}`);
  }
}

async function readJson(c: Ctx, maxBytes: number, send: string): Promise<Body<unknown>> {
  const mediaType = mediaTypeOf(c);
  if (mediaType !== JSON_TYPE) throw unsupported(mediaType, [JSON_TYPE]);
  const raw = await readBytes(c, maxBytes, send);
  return { value: parseJson(raw), raw, mediaType };
}

/** A table definition's envelope; the domain checks its columns, key and settings, with their own codes. */
export async function readCreateTable(c: Ctx, limits: Limits): Promise<unknown> {
  const { value } = await readJson(c, limits.maxBodyBytes, CREATE_BODY);
  return parseWire(CreateTableSchema, value, {
    send: CREATE_BODY,
    codes: {
      name: 'INVALID_TABLE_NAME',
      schema: 'INVALID_SCHEMA',
      primaryKey: 'INVALID_SCHEMA',
      shards: 'INVALID_SETTINGS',
      settings: 'INVALID_SETTINGS',
      retention: 'INVALID_SETTINGS',
      walLane: 'INVALID_SETTINGS',
    },
  });
}

/** A change of a table's columns; the domain checks it against the table, with its own codes. */
export async function readSchemaChange(c: Ctx, limits: Limits): Promise<unknown> {
  return (await readJson(c, limits.maxBodyBytes, SCHEMA_CHANGE_BODY)).value;
}

/** An index declaration's JSON; the domain checks it against the table, with its own codes. */
export async function readIndexDeclaration(c: Ctx, limits: Limits): Promise<unknown> {
  return (await readJson(c, limits.maxBodyBytes, INDEX_BODY)).value;
}

export async function readDrain(c: Ctx, limits: Limits): Promise<boolean> {
  const { value } = await readJson(c, limits.maxBodyBytes, DRAIN_BODY);
  return parseWire(DrainBodySchema, value, { send: DRAIN_BODY }).drain;
}

/** A search's JSON, its shape checked; the domain checks it against the table. */
export async function readSearch(c: Ctx, limits: Limits): Promise<z.infer<typeof SearchBodySchema>> {
  const { value } = await readJson(c, limits.maxBodyBytes, SEARCH_BODY);
  return parseWire(SearchBodySchema, value, { send: SEARCH_BODY });
}

/** `{"rows":[…]}` or an Arrow IPC stream, as Arrow data of the table's schema. */
/**
 * The rows of a write, read for `table` as this process holds it. Rows it refuses are read
 * again once against the definition read anew (`fresher`), when that is newer: another
 * process may have added the column they name (docs/design.md, "Schema evolution").
 */
export async function readRows(
  c: Ctx,
  table: TableDef,
  limits: Limits,
  fresher: (seen: number) => Promise<TableDef>,
): Promise<Body<Table | RecordBatch>> {
  const mediaType = mediaTypeOf(c);
  if (mediaType !== JSON_TYPE && mediaType !== ARROW_STREAM)
    throw unsupported(mediaType, [JSON_TYPE, ARROW_STREAM]);
  const raw = await readBytes(c, limits.maxBodyBytes, ROWS_BODY);
  const read = (def: TableDef) => ({ value: rowsOf(def, raw, mediaType, limits), raw, mediaType });
  try {
    return read(table);
  } catch (err) {
    if (!isSluiceError(err, 'INVALID_ROWS')) throw err;
    const fresh = await fresher(table.schema.version);
    if (fresh.schema.version === table.schema.version) throw err;
    return read(fresh);
  }
}

function rowsOf(table: TableDef, raw: Uint8Array, mediaType: string, limits: Limits): Table | RecordBatch {
  if (mediaType === ARROW_STREAM) {
    const rows = decodeArrowStreamForTable(table.schema, raw);
    if (rows.numRows > limits.maxRowsPerRequest) throw tooManyRows(rows.numRows, limits.maxRowsPerRequest);
    return rows;
  }
  const { rows } = parseWire(RowsBodySchema, parseJson(raw), {
    send: ROWS_BODY,
    codes: { rows: 'INVALID_ROWS' },
  });
  if (rows.length > limits.maxRowsPerRequest) throw tooManyRows(rows.length, limits.maxRowsPerRequest);
  return jsonRowsToRecordBatch(table.schema, rows);
}

/** `{"keys":[…]}`: the keys as clients give them; the domain parses each one. */
export async function readKeys(c: Ctx, limits: Limits): Promise<Body<unknown[]>> {
  const body = await readJson(c, limits.maxBodyBytes, KEYS_BODY);
  const { keys } = parseWire(KeysBodySchema, body.value, { send: KEYS_BODY });
  if (keys.length > limits.maxRowsPerRequest) throw tooManyRows(keys.length, limits.maxRowsPerRequest);
  return { ...body, value: keys };
}

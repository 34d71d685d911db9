/**
 * I9 over HTTP: every endpoint answers bad input with a 4xx and a clear error code, and
 * writes nothing. Each case runs against a real server process (the API alone, so nothing
 * in Redis moves unless a request moves it) and asserts the status, the code, and that
 * the whole store listing and every Redis key of the namespace are exactly as before.
 */
import { Int64 } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeIpcFile, encodeIpcStream } from '../../shared/arrow/ipc.ts';
import { jsonRowsToTable } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import { shardsPrefix, tableConfigKey } from '../../shared/table/paths.ts';
import { type Column, columnOf, streamOf } from '../support/arrow-streams.ts';
import {
  type Call,
  type CallOptions,
  httpClient,
  type TestTokens,
  testTokens,
} from '../support/http-client.ts';
import { createRedisNamespace, keysMatching, type RedisNamespace } from '../support/redis.ts';
import { eventRows, eventsTable } from '../support/rows.ts';
import { fullRow, sampleCreate } from '../support/sample-table.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const MAX_BODY = 64 * 1024;
const MAX_ROWS = 100;
const ARROW = 'application/vnd.apache.arrow.stream';

const typedCreate = sampleCreate({ name: 'typed', shards: 2 });
const typedSchema = parseTableSchema(typedCreate.schema, typedCreate.primaryKey);
const pairsCreate = {
  name: 'pairs',
  schema: {
    fields: [
      { name: 'tenant', type: 'utf8' },
      { name: 'id', type: 'int32' },
      { name: 'note', type: 'utf8', nullable: true },
    ],
  },
  primaryKey: ['tenant', 'id'],
  shards: 2,
};

function typedStream(rows: Record<string, unknown>[]): Uint8Array {
  return encodeIpcStream(jsonRowsToTable(typedSchema, rows));
}

/** The typed table's columns for `rows`, plus `extra`. */
function typedStreamWith(rows: Record<string, unknown>[], extra: Column): Uint8Array {
  const [batch] = jsonRowsToTable(typedSchema, rows).batches;
  const columns = batch!.schema.fields.map((field, i) => ({ field, data: batch!.data.children[i]! }));
  return streamOf([...columns, extra]);
}

/** A typed row with one column replaced (or removed, with `undefined`). */
function rowWith(column: string, value: unknown): Record<string, unknown> {
  const row: Record<string, unknown> = { ...fullRow(1), [column]: value };
  if (value === undefined) delete row[column];
  return row;
}

interface Case {
  name: string;
  method: string;
  path: string;
  /** Token: `all` unless named; `none` sends no Authorization header. */
  as?: keyof TestTokens | 'none';
  options?: CallOptions;
  status: number;
  code: string;
}

const ROWS = '/v1/tables/typed/rows';
const json = (value: unknown): CallOptions => ({ json: value });
const raw = (body: string | Uint8Array, contentType = 'application/json'): CallOptions => ({
  body,
  contentType,
});
const arrow = (body: Uint8Array): CallOptions => ({ body, contentType: ARROW });
const rows = (...list: unknown[]) => json({ rows: list });
const invalidRows = (name: string, row: Record<string, unknown>): Case => ({
  name,
  method: 'POST',
  path: ROWS,
  options: rows(row),
  status: 400,
  code: 'INVALID_ROWS',
});

// biome-ignore format: one case per line reads as a table
const bodyCases: Case[] = [
  { name: 'malformed JSON', method: 'POST', path: ROWS, options: raw('{"rows": ['), status: 400, code: 'INVALID_REQUEST' },
  { name: 'JSON with a NaN literal', method: 'POST', path: ROWS, options: raw('{"rows":[{"id":NaN}]}'), status: 400, code: 'INVALID_REQUEST' },
  { name: 'JSON that is an array', method: 'POST', path: ROWS, options: json([fullRow(1)]), status: 400, code: 'INVALID_REQUEST' },
  { name: 'JSON that is a string', method: 'POST', path: ROWS, options: json('rows'), status: 400, code: 'INVALID_REQUEST' },
  { name: 'JSON null', method: 'POST', path: ROWS, options: raw('null'), status: 400, code: 'INVALID_REQUEST' },
  { name: 'body not UTF-8', method: 'POST', path: ROWS, options: raw(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])), status: 400, code: 'INVALID_REQUEST' },
  { name: 'content type text/plain', method: 'POST', path: ROWS, options: raw('{"rows":[]}', 'text/plain'), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'content type missing', method: 'POST', path: ROWS, options: { body: '{"rows":[]}' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'content type form-urlencoded', method: 'POST', path: ROWS, options: raw('rows=1', 'application/x-www-form-urlencoded'), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'content type Arrow file', method: 'POST', path: ROWS, options: raw(typedStream([fullRow(1)]), 'application/vnd.apache.arrow.file'), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'empty JSON body', method: 'POST', path: ROWS, options: raw(''), status: 400, code: 'INVALID_REQUEST' },
  { name: 'empty Arrow body', method: 'POST', path: ROWS, options: arrow(new Uint8Array(0)), status: 400, code: 'INVALID_REQUEST' },
  { name: 'rows not an array', method: 'POST', path: ROWS, options: json({ rows: { id: 1 } }), status: 400, code: 'INVALID_ROWS' },
  { name: 'rows missing', method: 'POST', path: ROWS, options: json({}), status: 400, code: 'INVALID_ROWS' },
  { name: 'rows empty', method: 'POST', path: ROWS, options: json({ rows: [] }), status: 400, code: 'INVALID_ROWS' },
  { name: 'unknown property beside rows', method: 'POST', path: ROWS, options: json({ rows: [fullRow(1)], table: 'x' }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'a row that is not an object', method: 'POST', path: ROWS, options: rows(fullRow(1), 7), status: 400, code: 'INVALID_ROWS' },
  invalidRows('unknown column', { ...fullRow(1), colour: 'red' }),
  invalidRows('missing non-nullable column', rowWith('count', undefined)),
  invalidRows('null in a non-nullable column', rowWith('count', null)),
  invalidRows('null primary key', rowWith('id', null)),
  invalidRows('missing primary key', rowWith('id', undefined)),
  invalidRows('int64 key as a float', rowWith('id', 1.5)),
  invalidRows('int32: a string', rowWith('count', 'seven')),
  invalidRows('int32: float where int', rowWith('count', 1.5)),
  invalidRows('int32: NaN in an int', rowWith('count', 'NaN')),
  invalidRows('int32: beyond 2^31', rowWith('count', 2 ** 31)),
  invalidRows('int64: a boolean', rowWith('big', true)),
  invalidRows('int64: above its range', rowWith('big', '9223372036854775808')),
  invalidRows('int64: below its range', rowWith('big', '-9223372036854775809')),
  invalidRows('int64: an unsafe JSON number', rowWith('big', 2 ** 53 + 2)),
  invalidRows('int64: not a decimal', rowWith('big', '12a')),
  invalidRows('float64: a word', rowWith('ratio', 'abc')),
  invalidRows('float32: beyond its range', rowWith('small', 1e39)),
  invalidRows('bool: a string', rowWith('ok', 'true')),
  invalidRows('bool: a number', rowWith('ok', 1)),
  invalidRows('utf8: a number', rowWith('label', 5)),
  invalidRows('binary: not base64', rowWith('blob', 'not base64!')),
  invalidRows('timestamp[ms]: not a time', rowWith('at', 'yesterday')),
  invalidRows('timestamp[us]: an object', rowWith('at_us', {})),
  invalidRows('vector: wrong length', rowWith('emb', [1, 2])),
  invalidRows('vector: not numbers', rowWith('emb', ['a', 'b', 'c'])),
  { name: 'Arrow stream truncated', method: 'POST', path: ROWS, options: arrow(typedStream([fullRow(1), fullRow(2)]).subarray(0, 300)), status: 400, code: 'INVALID_ROWS' },
  { name: 'Arrow stream of another schema', method: 'POST', path: ROWS, options: arrow(encodeIpcStream(jsonRowsToTable(parseTableSchema(eventsTable('x').schema, ['id']), eventRows(1, 2)))), status: 400, code: 'INVALID_ROWS' },
  { name: 'Arrow stream with an extra column', method: 'POST', path: ROWS, options: arrow(typedStreamWith([fullRow(1)], columnOf('extra', new Int64(), [1n]))), status: 400, code: 'INVALID_ROWS' },
  { name: 'Arrow file sent as a stream', method: 'POST', path: ROWS, options: arrow(encodeIpcFile(jsonRowsToTable(typedSchema, [fullRow(1)]))), status: 400, code: 'INVALID_ROWS' },
  { name: 'Arrow stream of garbage', method: 'POST', path: ROWS, options: arrow(Buffer.from('not arrow at all, just text')), status: 400, code: 'INVALID_ROWS' },
  { name: 'oversized JSON body (Content-Length)', method: 'POST', path: ROWS, options: raw(JSON.stringify({ rows: [{ label: 'x'.repeat(MAX_BODY) }] })), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'oversized JSON body (chunked)', method: 'POST', path: ROWS, options: { ...raw(JSON.stringify({ rows: [{ label: 'x'.repeat(MAX_BODY * 2) }] })), chunked: true }, status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'oversized Arrow body', method: 'POST', path: ROWS, options: { ...arrow(typedStream([rowWith('label', 'y'.repeat(MAX_BODY))])), chunked: true }, status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'too many JSON rows', method: 'POST', path: ROWS, options: json({ rows: Array.from({ length: MAX_ROWS + 1 }, (_, i) => ({ id: i, count: i })) }), status: 413, code: 'TOO_MANY_ROWS' },
  { name: 'too many Arrow rows', method: 'POST', path: ROWS, options: arrow(typedStream(Array.from({ length: MAX_ROWS + 1 }, (_, i) => ({ id: i, count: i })))), status: 413, code: 'TOO_MANY_ROWS' },
  { name: 'Idempotency-Key not printable ASCII', method: 'POST', path: ROWS, options: { ...rows(fullRow(1)), headers: { 'idempotency-key': 'clé' } }, status: 400, code: 'INVALID_REQUEST' },
  { name: 'Idempotency-Key too long', method: 'POST', path: ROWS, options: { ...rows(fullRow(1)), headers: { 'idempotency-key': 'k'.repeat(300) } }, status: 400, code: 'INVALID_REQUEST' },
];

// biome-ignore format: one case per line reads as a table
const deleteCases: Case[] = [
  { name: 'delete: keys not an array', method: 'DELETE', path: ROWS, options: json({ keys: 1 }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'delete: keys empty', method: 'DELETE', path: ROWS, options: json({ keys: [] }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'delete: unknown property', method: 'DELETE', path: ROWS, options: json({ keys: [1], rows: [] }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'delete: key of the wrong type', method: 'DELETE', path: ROWS, options: json({ keys: [1, 'abc'] }), status: 400, code: 'INVALID_KEY' },
  { name: 'delete: composite key of the wrong arity', method: 'DELETE', path: '/v1/tables/pairs/rows', options: json({ keys: [['acme']] }), status: 400, code: 'INVALID_KEY' },
  { name: 'delete: scalar for a composite key', method: 'DELETE', path: '/v1/tables/pairs/rows', options: json({ keys: ['acme'] }), status: 400, code: 'INVALID_KEY' },
  { name: 'delete: too many keys', method: 'DELETE', path: ROWS, options: json({ keys: Array.from({ length: MAX_ROWS + 1 }, (_, i) => i) }), status: 413, code: 'TOO_MANY_ROWS' },
  { name: 'delete: an Arrow body', method: 'DELETE', path: ROWS, options: arrow(typedStream([fullRow(1)])), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
];

// biome-ignore format: one case per line reads as a table
const nameCases: Case[] = [
  { name: 'table name "..": the path resolves to no route', method: 'POST', path: '/v1/tables/../rows', options: rows(fullRow(1)), status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'table name "%2e%2e": decoded, then resolved like ".."', method: 'POST', path: '/v1/tables/%2e%2e/rows', options: rows(fullRow(1)), status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'table name "..%2Fetc"', method: 'POST', path: '/v1/tables/..%2Fetc/rows', options: rows(fullRow(1)), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'table name with an encoded "/"', method: 'GET', path: '/v1/tables/typed%2Fshards', status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'table name across two segments', method: 'POST', path: '/v1/tables/a/b/rows', options: rows(fullRow(1)), status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'table name with NUL', method: 'POST', path: '/v1/tables/typ%00ed/rows', options: rows(fullRow(1)), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'table name of 200 characters', method: 'GET', path: `/v1/tables/${'t'.repeat(200)}/rows`, status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'table name in unicode', method: 'GET', path: '/v1/tables/%C3%A9v%C3%A9nements', status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'unknown table: write', method: 'POST', path: '/v1/tables/nosuch/rows', options: rows(fullRow(1)), status: 404, code: 'TABLE_NOT_FOUND' },
  { name: 'unknown table: delete', method: 'DELETE', path: '/v1/tables/nosuch/rows', options: json({ keys: [1] }), status: 404, code: 'TABLE_NOT_FOUND' },
  { name: 'unknown table: lookup', method: 'GET', path: '/v1/tables/nosuch/rows?key=1', status: 404, code: 'TABLE_NOT_FOUND' },
  { name: 'unknown table: describe', method: 'GET', path: '/v1/tables/nosuch', status: 404, code: 'TABLE_NOT_FOUND' },
  { name: 'unknown table: shard stats', method: 'GET', path: '/v1/tables/nosuch/shards/0', status: 404, code: 'TABLE_NOT_FOUND' },
  { name: 'create: name ".."', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: '..' }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: name with "/"', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'a/b' }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: name with NUL', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'a\u0000b' }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: name of 200 characters', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'n'.repeat(200) }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: unicode name', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'tâble' }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: unknown column type', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c1', schema: { fields: [{ name: 'tenant', type: 'decimal' }] } }), status: 400, code: 'INVALID_SCHEMA' },
  { name: 'create: float primary key', method: 'POST', path: '/v1/tables', options: json({ name: 'c2', schema: { fields: [{ name: 'f', type: 'float64' }] }, primaryKey: ['f'] }), status: 400, code: 'INVALID_SCHEMA' },
  { name: 'create: zero shards', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c3', shards: 0 }), status: 400, code: 'INVALID_SETTINGS' },
  { name: 'create: unknown property', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c4', owner: 'me' }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'create: a JSON array', method: 'POST', path: '/v1/tables', options: json([{ ...pairsCreate, name: 'c6' }]), status: 400, code: 'INVALID_REQUEST' },
  { name: 'create: name missing', method: 'POST', path: '/v1/tables', options: json({ schema: pairsCreate.schema, primaryKey: pairsCreate.primaryKey }), status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'create: primaryKey not an array', method: 'POST', path: '/v1/tables', options: json({ name: 'c7', schema: pairsCreate.schema, primaryKey: 'k' }), status: 400, code: 'INVALID_SCHEMA' },
  { name: 'create: schema not an object', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c8', schema: [] }), status: 400, code: 'INVALID_SCHEMA' },
  { name: 'create: a field with an unknown property', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c9', schema: { fields: [...pairsCreate.schema.fields, { name: 'x', type: 'utf8', nulable: true }] } }), status: 400, code: 'INVALID_SCHEMA' },
  { name: 'create: shards as a string', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c10', shards: '2' }), status: 400, code: 'INVALID_SETTINGS' },
  { name: 'create: settings not an object', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c11', settings: 8 }), status: 400, code: 'INVALID_SETTINGS' },
  { name: 'create: an unknown setting', method: 'POST', path: '/v1/tables', options: json({ ...pairsCreate, name: 'c12', settings: { mergeSoon: 1 } }), status: 400, code: 'INVALID_SETTINGS' },
  { name: 'create: an existing table', method: 'POST', path: '/v1/tables', options: json(pairsCreate), status: 409, code: 'TABLE_EXISTS' },
  { name: 'create: malformed JSON', method: 'POST', path: '/v1/tables', options: raw('{"name":'), status: 400, code: 'INVALID_REQUEST' },
  { name: 'create: wrong content type', method: 'POST', path: '/v1/tables', options: raw('name=x', 'text/plain'), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
];

// biome-ignore format: one case per line reads as a table
const readCases: Case[] = [
  ...['0', '1001', '-1', 'abc', '1.5', '1e2', ''].map((limit): Case => ({ name: `scan: limit "${limit}"`, method: 'GET', path: `${ROWS}?limit=${limit}`, status: 400, code: 'INVALID_REQUEST' })),
  { name: 'scan: malformed cursor', method: 'GET', path: `${ROWS}?after=garbage!`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'scan: cursor without its prefix', method: 'GET', path: `${ROWS}?after=${Buffer.from('12345678').toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'scan: forged cursor (not a snapshot of this table)', method: 'GET', path: `${ROWS}?after=s2.${Buffer.from('abc').toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'scan: forged cursor (the shards of another table)', method: 'GET', path: `${ROWS}?after=s2.${Buffer.from(JSON.stringify({ b: 0, s: [], t: 0, k: null, o: 0, p: 'base' })).toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'lookup: key and limit together', method: 'GET', path: `${ROWS}?key=1&limit=5`, status: 400, code: 'INVALID_REQUEST' },
  { name: 'lookup: key of the wrong type', method: 'GET', path: `${ROWS}?key=${encodeURIComponent('"abc"')}`, status: 400, code: 'INVALID_KEY' },
  { name: 'lookup: key of the wrong arity', method: 'GET', path: `${ROWS}?key=${encodeURIComponent('[1,2]')}`, status: 400, code: 'INVALID_KEY' },
  { name: 'lookup: composite key of the wrong arity', method: 'GET', path: `/v1/tables/pairs/rows?key=${encodeURIComponent('["acme"]')}`, status: 400, code: 'INVALID_KEY' },
  { name: 'lookup: scalar for a composite key', method: 'GET', path: '/v1/tables/pairs/rows?key=acme', status: 400, code: 'INVALID_KEY' },
  { name: 'lookup: an object as key', method: 'GET', path: `${ROWS}?key=${encodeURIComponent('{"id":1}')}`, status: 400, code: 'INVALID_KEY' },
  { name: 'tables: limit 0', method: 'GET', path: '/v1/tables?limit=0', status: 400, code: 'INVALID_REQUEST' },
  { name: 'tables: malformed cursor', method: 'GET', path: '/v1/tables?after=..', status: 400, code: 'INVALID_CURSOR' },
  { name: 'shard: not a number', method: 'GET', path: '/v1/tables/typed/shards/x', status: 400, code: 'INVALID_REQUEST' },
  { name: 'shard: negative', method: 'GET', path: '/v1/tables/typed/shards/-1', status: 400, code: 'INVALID_REQUEST' },
  { name: 'shard: beyond the table', method: 'GET', path: '/v1/tables/typed/shards/99', status: 404, code: 'SHARD_NOT_FOUND' },
  { name: 'reopen of a healthy shard (409, not a no-op)', method: 'POST', path: '/v1/tables/typed/shards/0/reopen', status: 409, code: 'SHARD_NOT_POISONED' },
  { name: 'dead letters: limit 257', method: 'GET', path: '/v1/dead-letters?limit=257', status: 400, code: 'INVALID_REQUEST' },
  { name: 'dead letters: malformed cursor', method: 'GET', path: '/v1/dead-letters?after=%7Bnot-base64%7D', status: 400, code: 'INVALID_CURSOR' },
  { name: 'dead letters: cursor that is not JSON', method: 'GET', path: `/v1/dead-letters?after=${Buffer.from('at=1').toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'dead letters: forged cursor (negative position)', method: 'GET', path: `/v1/dead-letters?after=${Buffer.from(JSON.stringify({ at: -1, id: 'flush-1', failedAt: 0 })).toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'dead letters: forged cursor (extra field)', method: 'GET', path: `/v1/dead-letters?after=${Buffer.from(JSON.stringify({ at: 1, id: 'flush-1', failedAt: 0, x: 1 })).toString('base64url')}`, status: 400, code: 'INVALID_CURSOR' },
  { name: 'lookup of several: keys not an array', method: 'POST', path: `${ROWS}/lookup`, options: json({ keys: 1 }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'lookup of several: unknown property', method: 'POST', path: `${ROWS}/lookup`, options: json({ keys: [1], limit: 5 }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'drain: an unknown property', method: 'POST', path: '/v1/tables/typed/drain', options: json({ drain: true, table: 'typed' }), status: 400, code: 'INVALID_REQUEST' },
  { name: 'drain: a JSON array', method: 'POST', path: '/v1/tables/typed/drain', options: json([true]), status: 400, code: 'INVALID_REQUEST' },
  { name: 'merge status: table name with NUL', method: 'GET', path: '/v1/tables/typ%00ed/merge/1', status: 400, code: 'INVALID_TABLE_NAME' },
  { name: 'reopen: shard not a number', method: 'POST', path: '/v1/tables/typed/shards/one/reopen', status: 400, code: 'INVALID_REQUEST' },
  { name: 'cooldowns: limit 0', method: 'GET', path: '/v1/scheduler/cooldowns?limit=0', status: 400, code: 'INVALID_REQUEST' },
  { name: 'merge failures: limit "1e2"', method: 'GET', path: '/v1/scheduler/merge-failures?limit=1e2', status: 400, code: 'INVALID_REQUEST' },
  { name: 'dead letter that does not exist', method: 'GET', path: '/v1/dead-letters/flush-424242', status: 404, code: 'JOB_NOT_FOUND' },
  { name: 'dead letter id naming queue metadata', method: 'GET', path: '/v1/dead-letters/meta', status: 404, code: 'JOB_NOT_FOUND' },
  { name: 'retry of a dead letter that does not exist', method: 'POST', path: '/v1/dead-letters/flush-424242/retry', status: 404, code: 'JOB_NOT_FOUND' },
  { name: 'unknown route', method: 'GET', path: '/v1/nothing-here', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'unknown method on a route', method: 'PUT', path: '/v1/tables/typed', options: json({}), status: 404, code: 'ROUTE_NOT_FOUND' },
];

// biome-ignore format: one case per line reads as a table
const authCases: Case[] = [
  { name: 'auth: no token on a write', method: 'POST', path: ROWS, as: 'none', options: rows(fullRow(1)), status: 401, code: 'UNAUTHORIZED' },
  { name: 'auth: no token on a read', method: 'GET', path: `${ROWS}?key=1`, as: 'none', status: 401, code: 'UNAUTHORIZED' },
  { name: 'auth: garbled header', method: 'POST', path: ROWS, as: 'none', options: { ...rows(fullRow(1)), headers: { authorization: 'Bearer' } }, status: 401, code: 'UNAUTHORIZED' },
  { name: 'auth: another scheme', method: 'POST', path: ROWS, as: 'none', options: { ...rows(fullRow(1)), headers: { authorization: 'Token abc' } }, status: 401, code: 'UNAUTHORIZED' },
  { name: 'auth: unknown token', method: 'POST', path: ROWS, as: 'none', options: { ...rows(fullRow(1)), headers: { authorization: 'Bearer not-a-configured-token' } }, status: 401, code: 'UNAUTHORIZED' },
  { name: 'auth: read token on a write', method: 'POST', path: ROWS, as: 'read', options: rows(fullRow(1)), status: 403, code: 'FORBIDDEN' },
  { name: 'auth: read token on a delete', method: 'DELETE', path: ROWS, as: 'read', options: json({ keys: [1] }), status: 403, code: 'FORBIDDEN' },
  { name: 'auth: read token on create', method: 'POST', path: '/v1/tables', as: 'read', options: json({ ...pairsCreate, name: 'c5' }), status: 403, code: 'FORBIDDEN' },
  { name: 'auth: write token on reopen', method: 'POST', path: '/v1/tables/typed/shards/0/reopen', as: 'write', status: 403, code: 'FORBIDDEN' },
  { name: 'auth: write token on dead letters', method: 'GET', path: '/v1/dead-letters', as: 'write', status: 403, code: 'FORBIDDEN' },
  { name: 'auth: write token on a merge', method: 'POST', path: '/v1/tables/typed/merge', as: 'write', status: 403, code: 'FORBIDDEN' },
];

const cases = [...bodyCases, ...deleteCases, ...nameCases, ...readCases, ...authCases];

describe('hostile input over HTTP writes nothing (I9)', () => {
  let dir: TempDir;
  let namespace: RedisNamespace;
  let server: ServerProcess;
  let tokens: TestTokens;
  let call: Call;
  let store: FsStore;

  /** Every object of the store and every Redis key of the namespace, with its value. */
  async function snapshot(): Promise<{ objects: string[]; redis: string[] }> {
    const objects: string[] = [];
    for await (const page of store.list('')) {
      for (const object of page) objects.push(`${object.key} ${object.size} ${object.etag}`);
    }
    const redis = namespace.connect();
    const keys = await keysMatching(redis, `${namespace.prefix}*`);
    const dumps = await Promise.all(
      keys.map(async (key) => `${key} ${(await redis.dumpBuffer(key))?.toString('hex')}`),
    );
    redis.disconnect();
    return { objects, redis: dumps.sort() };
  }

  beforeAll(async () => {
    dir = await createTempDir('http-hostile');
    namespace = createRedisNamespace();
    tokens = testTokens();
    store = new FsStore(dir.path);
    server = await spawnServer({
      storeDir: dir.path,
      redisUrl: namespace.url,
      redisPrefix: namespace.prefix,
      role: 'api',
      env: {
        SLUICE_TOKENS: tokens.env,
        SLUICE_MAX_BODY_BYTES: String(MAX_BODY),
        SLUICE_MAX_ROWS_PER_REQUEST: String(MAX_ROWS),
      },
    });
    call = httpClient(server.url);
    for (const create of [typedCreate, pairsCreate]) {
      expect((await call('POST', '/v1/tables', { token: tokens.all, json: create })).status).toBe(201);
    }
    const seeded = await call('POST', ROWS, { token: tokens.all, json: { rows: [fullRow(1), fullRow(2)] } });
    expect(seeded.status).toBe(200);
    const pairs = { rows: [{ tenant: 'acme', id: 1, note: null }] };
    expect((await call('POST', '/v1/tables/pairs/rows', { token: tokens.all, json: pairs })).status).toBe(
      200,
    );
    // The seeding writes armed their shards' next seal; with no worker to start it, the arm
    // expires on its own, and the cases compare Redis before and after each request.
    const redis = namespace.connect();
    await waitFor(async () => (await keysMatching(redis, `${namespace.prefix}*:seal-armed`)).length === 0, {
      message: 'armed seals expired',
    });
    redis.disconnect();
  });

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await store?.close();
    await namespace?.cleanup();
    await dir?.cleanup();
  });

  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  for (const c of cases) {
    it(`${c.method} ${c.name} → ${c.status} ${c.code}`, async () => {
      const before = await snapshot();
      const token = c.as === 'none' ? undefined : tokens[c.as ?? 'all'];
      const reply = await call(c.method, c.path, { token, ...c.options });
      expect({ status: reply.status, code: reply.json?.error?.code }).toEqual({
        status: c.status,
        code: c.code,
      });
      expect(typeof reply.json.error.message).toBe('string');
      expect(reply.json.error.details).toBeTypeOf('object');
      expect(JSON.stringify(reply.json)).not.toMatch(/\n\s+at /);
      if (c.code === 'PAYLOAD_TOO_LARGE') expect(reply.headers.connection).toBe('close');
      expect(await snapshot()).toEqual(before);
    });
  }

  it('the snapshot sees the seeded tables and their Redis keys', async () => {
    const { objects, redis } = await snapshot();
    expect(objects.some((o) => o.startsWith(`${tableConfigKey('typed')} `))).toBe(true);
    expect(objects.some((o) => o.startsWith(shardsPrefix('pairs')))).toBe(true);
    expect(redis.some((k) => k.startsWith(`${namespace.prefix}:{typed/`))).toBe(true);
  });

  it('the seeded rows are still exactly what was written', async () => {
    const scan = await call('GET', `${ROWS}?limit=10`, { token: tokens.read });
    expect(scan.json.rows.map((r: { id: number }) => r.id)).toEqual([1, 2]);
  });

  it('a valid write does change the snapshot (the check can fail)', async () => {
    const before = await snapshot();
    expect((await call('POST', ROWS, { token: tokens.write, json: { rows: [fullRow(3)] } })).status).toBe(
      200,
    );
    const after = await snapshot();
    expect(after.objects).not.toEqual(before.objects);
    expect(after.redis).not.toEqual(before.redis);
  });
});

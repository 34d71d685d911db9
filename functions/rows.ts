/**
 * Rows: upsert (JSON or Arrow stream), delete by key, point lookup and scan (JSON, or an
 * Arrow stream when the client accepts one). In JSON, int64 and timestamps beyond 2^53
 * are decimal strings, binary is base64 and non-finite floats are "NaN"/"Infinity" — the
 * forms writes accept.
 */
import { createHash } from 'node:crypto';
import type { Table } from 'apache-arrow';
import { Hono } from 'hono';
import { encodeIpcStream } from '../shared/arrow/ipc.ts';
import { tableToJsonRows } from '../shared/arrow/json-rows.ts';
import { SluiceError } from '../shared/errors.ts';
import { bytesWritten } from '../shared/metrics.ts';
import type { AppendResult } from '../shared/wal/append.ts';
import type { ApiDeps } from './app.ts';
import { ARROW_STREAM, type Body, readKeys, readRows } from './body.ts';
import { afterQuery, limitQuery } from './query.ts';
import { type Ctx, type Env, tableParam } from './request.ts';

const MAX_SCAN_LIMIT = 1000;
/** Arrow pages are columnar and need no per-row JSON encoding, so a page may hold ten times as many rows. */
const MAX_ARROW_SCAN_LIMIT = 10_000;
const DEFAULT_SCAN_LIMIT = 100;
/** Printable ASCII, as in the IETF Idempotency-Key draft's examples; long enough for any UUID scheme. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** `?key=` is JSON — a scalar, or an array for a composite key; text that is not JSON is a string. */
function keyQuery(text: string): unknown {
  // A bare integer beyond 2^53 would lose digits as a JSON number; int64 keys take it as text.
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function wantsArrow(c: Ctx): boolean {
  return (c.req.header('accept') ?? '').toLowerCase().includes(ARROW_STREAM);
}

function arrowResponse(c: Ctx, rows: Table): Response {
  // tableToIPC allocates a plain ArrayBuffer; only its declared type allows a shared one.
  const bytes = encodeIpcStream(rows) as Uint8Array<ArrayBuffer>;
  return c.body(bytes, 200, { 'Content-Type': ARROW_STREAM });
}

export function rowRoutes({ sluice, idempotency, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  const { limits } = sluice.config;

  /** The ack of a write; with an Idempotency-Key, the first ack of the same request. */
  const ack = async (c: Ctx, table: string, body: Body<unknown>, write: () => Promise<AppendResult>) => {
    const op = c.req.method === 'DELETE' ? 'delete' : 'upsert';
    const counted = async () => {
      const result = await write();
      bytesWritten.inc({ op }, body.raw.byteLength);
      return result;
    };
    const key = c.req.header('idempotency-key');
    if (key === undefined) return c.json(await counted());
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new SluiceError('INVALID_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
    }
    const fingerprint = createHash('sha256')
      .update(`${c.req.method}\n${body.mediaType}\n`)
      .update(body.raw)
      .digest('hex');
    const outcome = await idempotency.run({ table, key, fingerprint }, counted, c.var.signal);
    if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(outcome.result);
  };

  app.post('/v1/tables/:t/rows', requireScope('write'), async (c) => {
    const def = await sluice.table(tableParam(c));
    const body = await readRows(c, def, limits);
    return ack(c, def.name, body, () => sluice.append(def.name, body.value));
  });

  app.delete('/v1/tables/:t/rows', requireScope('write'), async (c) => {
    const def = await sluice.table(tableParam(c));
    const body = await readKeys(c, limits);
    return ack(c, def.name, body, () => sluice.delete(def.name, body.value));
  });

  app.get('/v1/tables/:t/rows', requireScope('read'), async (c) => {
    const def = await sluice.table(tableParam(c));
    const key = c.req.query('key');
    if (key !== undefined) {
      if (c.req.query('limit') !== undefined || c.req.query('after') !== undefined) {
        throw new SluiceError('INVALID_REQUEST', 'key looks up one row: it goes without limit and after');
      }
      const found = await sluice.lookup(def.name, keyQuery(key), c.var.signal);
      if (!found)
        throw new SluiceError('KEY_NOT_FOUND', `no row with key ${key.slice(0, 200)}`, { table: def.name });
      return wantsArrow(c) ? arrowResponse(c, found) : c.json({ row: tableToJsonRows(def.schema, found)[0] });
    }
    const limit = limitQuery(c, wantsArrow(c) ? MAX_ARROW_SCAN_LIMIT : MAX_SCAN_LIMIT, DEFAULT_SCAN_LIMIT);
    const page = await sluice.scan(def.name, { limit, after: afterQuery(c) }, c.var.signal);
    if (!wantsArrow(c)) return c.json({ rows: tableToJsonRows(def.schema, page.rows), next: page.next });
    if (page.next) c.header('Sluice-Next', page.next);
    return arrowResponse(c, page.rows);
  });

  return app;
}

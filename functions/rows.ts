/**
 * Rows: upsert (JSON or Arrow stream), delete by key, point lookup and scan (JSON, or an
 * Arrow stream when the client accepts one). In JSON, int64 and timestamps beyond 2^53
 * are decimal strings, binary is base64 and non-finite floats are "NaN"/"Infinity" — the
 * forms writes accept.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { SluiceError } from '../shared/errors.ts';
import type { Claim } from '../shared/idempotency.ts';
import { bytesWritten } from '../shared/metrics.ts';
import type { TableDef } from '../shared/table/table-def.ts';
import type { AppendResult } from '../shared/wal/append.ts';
import type { WalWrite } from '../shared/wal/wal-entry.ts';
import type { ApiDeps } from './app.ts';
import { type Body, readKeys, readRows } from './body.ts';
import {
  ArrowRowsQuerySchema,
  ColumnsQuerySchema,
  IdempotencyHeaderSchema,
  RowsQuerySchema,
} from './openapi/schemas.ts';
import { parseWire } from './openapi/wire-input.ts';
import { type Ctx, type Env, queryParams, tableParam } from './request.ts';
import { arrowResponse, jsonRows, lookupArrowResponse, wantsArrow } from './row-answers.ts';

/** Keys per lookup: each is a literal of one Lance filter and one search per overlay run. */
const MAX_LOOKUP_KEYS = 1000;
/** What a point lookup goes without. */
const SCAN_PARAMS = ['limit', 'after', 'from', 'to'];

export function rowRoutes({ sluice, idempotency, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  const { limits } = sluice.config;

  /**
   * The ack of a write; with an Idempotency-Key, the first ack of the same request. A retried
   * append must not land twice, so its puts are noted and a retry settles them (I20).
   */
  const ack = async (
    c: Ctx,
    def: TableDef,
    body: Body<unknown>,
    write: (beforePut?: WalWrite['beforePut']) => Promise<AppendResult>,
  ) => {
    const op = c.req.method === 'DELETE' ? 'delete' : 'upsert';
    const counted = async (claim?: Claim | null) => {
      const result = await write(claim ? (put) => claim.note(put) : undefined);
      bytesWritten.inc({ op }, body.raw.byteLength);
      return result;
    };
    const key = parseWire(IdempotencyHeaderSchema, c.req.header())['idempotency-key'];
    if (key === undefined) return c.json(await counted());
    const fingerprint = createHash('sha256')
      .update(`${c.req.method}\n${body.mediaType}\n`)
      .update(body.raw)
      .digest('hex');
    const settle = sluice.writes.retrySettle(def);
    const request = { table: def.name, key, fingerprint, ...(settle && { settle }) };
    const outcome = await idempotency.run(request, counted, c.var.signal);
    if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(outcome.result);
  };

  /**
   * A write learns of a drop from its WAL allocation; a replayed one writes nothing, so it
   * asks first.
   */
  const writeTable = (c: Ctx) =>
    c.req.header('idempotency-key') === undefined
      ? sluice.tables.describeForWrite(tableParam(c))
      : sluice.tables.describe(tableParam(c));

  app.post('/v1/tables/:t/rows', requireScope('write'), async (c) => {
    const def = await sluice.tables.forRows(await writeTable(c));
    const body = await readRows(c, def, limits, (seen) => sluice.tables.refresh(def.name, seen));
    return ack(c, def, body, (beforePut) => sluice.writes.append(def.name, body.value, beforePut));
  });

  app.delete('/v1/tables/:t/rows', requireScope('write'), async (c) => {
    const def = await writeTable(c);
    const body = await readKeys(c, limits);
    return ack(c, def, body, () => sluice.writes.delete(def.name, body.value));
  });

  app.get('/v1/tables/:t/rows', requireScope('read'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    const query = queryParams(c, wantsArrow(c) ? ArrowRowsQuerySchema : RowsQuerySchema);
    const { columns, key } = query;
    if ((c.req.queries('key') ?? []).length > 1) {
      throw new SluiceError(
        'INVALID_REQUEST',
        `key names one row; to look up several, POST {"keys":[…]} to /v1/tables/${def.name}/rows/lookup`,
      );
    }
    if (key !== undefined) {
      const others = SCAN_PARAMS.filter((name) => c.req.query(name) !== undefined);
      if (others.length > 0) {
        throw new SluiceError(
          'INVALID_REQUEST',
          `key looks up one row: it goes without ${others.join(', ')}`,
        );
      }
      const found = await sluice.reads.lookup(def.name, key, { columns, signal: c.var.signal });
      if (!found) {
        const text = c.req.query('key')!.slice(0, 200);
        throw new SluiceError('KEY_NOT_FOUND', `no row with key ${text}`, { table: def.name });
      }
      return wantsArrow(c)
        ? arrowResponse(c, found)
        : c.json({ row: jsonRows(await sluice.tables.describeHeld(def.name), found)[0] });
    }
    const { limit, after, from, to } = query;
    const range = { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
    const page = await sluice.reads.scan(def.name, { limit, after, columns, ...range }, c.var.signal);
    if (!wantsArrow(c))
      return c.json({
        rows: jsonRows(await sluice.tables.describeHeld(def.name), page.rows),
        next: page.next,
      });
    if (page.next) c.header('Sluice-Next', page.next);
    return arrowResponse(c, page.rows);
  });

  app.post('/v1/tables/:t/rows/lookup', requireScope('read'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    const body = await readKeys(c, { ...limits, maxRowsPerRequest: MAX_LOOKUP_KEYS });
    const found = await sluice.reads.lookupMany(def.name, body.value, {
      columns: queryParams(c, ColumnsQuerySchema).columns,
      signal: c.var.signal,
    });
    if (wantsArrow(c)) return lookupArrowResponse(c, found);
    return c.json({
      rows: jsonRows(await sluice.tables.describeHeld(def.name), found.rows),
      missing: found.missing,
    });
  });

  app.get('/v1/tables/:t/rows/count', requireScope('read'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    return c.json({ table: def.name, ...(await sluice.reads.countRows(def.name, c.var.signal)) });
  });

  return app;
}

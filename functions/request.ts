/**
 * What every request carries: an id (the client's `X-Request-Id` when it is sane, else a
 * new one), a child logger with that id, and a deadline. Past the deadline the client gets
 * 504 TIMEOUT and the request's signal aborts the reads still running for it; a write
 * already under way may still land (retrying it in full is harmless). And its path and
 * query parameters, parsed by the wire schemas of its OpenAPI route.
 */
import { randomUUID } from 'node:crypto';
import type { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { SluiceError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import { TableParamsSchema } from './openapi/schemas.ts';
import { parseWire } from './openapi/wire-input.ts';

export interface Env {
  Variables: {
    reqId: string;
    log: Logger;
    signal: AbortSignal;
  };
}

export type Ctx = Context<Env>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Outermost: by the time `next()` returns, errors have become responses, so the status logged is the one sent. */
export function requestContext(log: Logger): MiddlewareHandler<Env> {
  return async (c, next) => {
    const offered = c.req.header('x-request-id');
    const reqId = offered && REQUEST_ID.test(offered) ? offered : randomUUID();
    const started = performance.now();
    c.set('reqId', reqId);
    c.set('log', log.child({ reqId }));
    await next();
    c.header('X-Request-Id', reqId);
    const ms = Math.round(performance.now() - started);
    c.var.log.info({ method: c.req.method, route: routePath(c), status: c.res.status, ms }, 'request');
  };
}

export function deadline(timeoutMs: number): MiddlewareHandler<Env> {
  return async (c, next) => {
    const controller = new AbortController();
    c.set('signal', controller.signal);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new SluiceError('TIMEOUT', `the request took longer than ${timeoutMs} ms`, {
          timeoutMs,
        });
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The path parameters by the route's schema. A bad table name is INVALID_TABLE_NAME, as the
 * domain answers it; a good one names the table in later log lines of the request.
 */
export function pathParams<T extends z.ZodType>(c: Ctx, schema: T): z.output<T> {
  const params = parseWire(schema, c.req.param(), { codes: { t: 'INVALID_TABLE_NAME' } });
  const { t } = params as { t?: unknown };
  if (typeof t === 'string') c.set('log', c.var.log.child({ table: t }));
  return params;
}

export function tableParam(c: Ctx): string {
  return pathParams(c, TableParamsSchema).t;
}

export function queryParams<T extends z.ZodType>(c: Ctx, schema: T): z.output<T> {
  return parseWire(schema, c.req.query());
}

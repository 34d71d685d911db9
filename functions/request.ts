/**
 * What every request carries: an id (the client's `X-Request-Id` when it is sane, else a
 * new one), a child logger with that id, and a deadline. Past the deadline the client gets
 * 504 TIMEOUT and the request's signal aborts the reads still running for it; a write
 * already under way may still land (retrying it in full is harmless).
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { SluiceError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import { assertTableName } from '../shared/table/table-name.ts';

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

/** The `{t}` of the path, checked; later log lines of the request name the table. */
export function tableParam(c: Ctx): string {
  const name = assertTableName(c.req.param('t'));
  c.set('log', c.var.log.child({ table: name }));
  return name;
}

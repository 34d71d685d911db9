/**
 * HTTP metrics of every request: count and latency by route pattern, method and status;
 * for the row routes also read latency and the bytes read. Route patterns, not paths, so a
 * table name never becomes a label.
 */
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { bytesRead, httpDuration, httpRequests, readDuration } from '../shared/metrics.ts';
import type { Env } from './request.ts';

const ROWS_ROUTE = '/v1/tables/:t/rows';

/** Inside requestContext: errors have become responses when `next()` returns, so the status is the one sent. */
export function httpMetrics(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const matched = routePath(c, -1);
    const route = matched === '/*' || matched === '*' ? 'unmatched' : matched;
    const labels = { route, method: c.req.method, status: String(c.res.status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, seconds);
    if (route !== ROWS_ROUTE || c.req.method !== 'GET') return;
    const op = c.req.query('key') === undefined ? 'scan' : 'lookup';
    readDuration.observe({ op, status: labels.status }, seconds);
    if (c.res.ok) bytesRead.inc({ op }, await responseBytes(c.res));
  };
}

async function responseBytes(res: Response): Promise<number> {
  const declared = res.headers.get('content-length');
  if (declared !== null) return Number(declared);
  return res.body === null ? 0 : (await res.clone().arrayBuffer()).byteLength;
}

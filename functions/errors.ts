/**
 * The one place where anything thrown becomes an HTTP answer: the envelope
 * `{"error":{"code","message","details"}}` with the status of the code's row in
 * shared/errors.ts. An error that is not a SluiceError is a bug or an outage of something
 * below: the client gets INTERNAL with the request id and nothing else, the log gets the rest.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isSluiceError, SluiceError } from '../shared/errors.ts';
import { poisonedAnswer } from './poisoned-answer.ts';
import type { Ctx } from './request.ts';

export function errorResponse(err: unknown, c: Ctx): Response {
  const error = isSluiceError(err)
    ? err
    : new SluiceError('INTERNAL', 'internal error', { requestId: c.var.reqId });
  const answer = error.code === 'SHARD_POISONED' ? poisonedAnswer(error) : error;
  if (error.status >= 500) c.var.log.error({ err }, 'request failed');
  else c.var.log.info({ code: error.code }, 'request refused');
  if (error.code === 'BACKPRESSURE') {
    c.header('Retry-After', String(error.details.retryAfterSeconds ?? 1));
  }
  if (error.code === 'UNAUTHORIZED') c.header('WWW-Authenticate', 'Bearer realm="sluice"');
  // The rest of a refused body was never read: this connection cannot carry another request.
  if (error.code === 'PAYLOAD_TOO_LARGE') c.header('Connection', 'close');
  return c.json({ error: answer.toJSON() }, answer.status as ContentfulStatusCode);
}

export function routeNotFound(c: Ctx): Response {
  const path = new URL(c.req.url).pathname;
  const error = new SluiceError('ROUTE_NOT_FOUND', `no route for ${c.req.method} ${path.slice(0, 200)}`, {
    method: c.req.method,
  });
  return errorResponse(error, c);
}

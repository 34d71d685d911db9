/**
 * Dead letters (admin): list, inspect, retry. Listing and inspecting only read (I17); a
 * retry asks for the flush again and removes the letter, refused with 409
 * SHARD_STILL_POISONED while the shard is poisoned.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { DeadLetterParamsSchema, PageQuerySchema } from './openapi/schemas.ts';
import { type Env, pathParams, queryParams } from './request.ts';

export function deadLetterRoutes({ sluice, deadLetters, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/dead-letters', requireScope('admin'), async (c) => {
    return c.json(await deadLetters.page(queryParams(c, PageQuerySchema)));
  });

  app.get('/v1/dead-letters/:id', requireScope('admin'), async (c) => {
    return c.json(await deadLetters.get(pathParams(c, DeadLetterParamsSchema).id));
  });

  app.post('/v1/dead-letters/:id/retry', requireScope('admin'), async (c) => {
    const letter = await deadLetters.retry(pathParams(c, DeadLetterParamsSchema).id, sluice.shards);
    c.var.log.warn({ id: letter.id, queue: letter.queue, target: letter.target }, 'dead letter retried');
    return c.json({ id: letter.id, queue: letter.queue, target: letter.target, status: 'requeued' }, 202);
  });

  return app;
}

/**
 * Dead letters (admin): list, inspect, retry. Listing and inspecting only read (I17); a
 * retry asks for the flush again and removes the letter, refused with 409
 * SHARD_STILL_POISONED while the shard is poisoned.
 */
import { Hono } from 'hono';
import { MAX_DEAD_LETTERS_PER_PAGE } from '../queue/dead-letter.ts';
import type { ApiDeps } from './app.ts';
import { afterQuery, limitQuery } from './query.ts';
import type { Env } from './request.ts';

export function deadLetterRoutes({ sluice, deadLetters, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/dead-letters', requireScope('admin'), async (c) => {
    const limit = limitQuery(c, MAX_DEAD_LETTERS_PER_PAGE, MAX_DEAD_LETTERS_PER_PAGE);
    return c.json(await deadLetters.page({ after: afterQuery(c), limit }));
  });

  app.get('/v1/dead-letters/:id', requireScope('admin'), async (c) => {
    return c.json(await deadLetters.get(c.req.param('id')));
  });

  app.post('/v1/dead-letters/:id/retry', requireScope('admin'), async (c) => {
    const letter = await deadLetters.retry(c.req.param('id'), sluice.shards);
    c.var.log.warn({ id: letter.id, queue: letter.queue, target: letter.target }, 'dead letter retried');
    return c.json({ id: letter.id, queue: letter.queue, target: letter.target, status: 'requeued' }, 202);
  });

  return app;
}

/**
 * Shards: stats (readable whether the shard is poisoned or not) and reopen (admin). A
 * reopen of a shard that is not poisoned is refused with 409 SHARD_NOT_POISONED rather
 * than treated as a no-op, so a mistyped shard number does not pass unnoticed.
 */
import { Hono } from 'hono';
import { SluiceError } from '../shared/errors.ts';
import type { ApiDeps } from './app.ts';
import { type Ctx, type Env, tableParam } from './request.ts';

function shardParam(c: Ctx): number {
  const text = c.req.param('s') ?? '';
  if (!/^\d{1,5}$/.test(text)) {
    throw new SluiceError('INVALID_REQUEST', 'the shard must be a shard index (0, 1, …)', {
      shard: text.slice(0, 32),
    });
  }
  return Number(text);
}

export function shardRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/tables/:t/shards/:s', requireScope('read'), async (c) => {
    return c.json(await sluice.shards.stats(tableParam(c), shardParam(c)));
  });

  app.post('/v1/tables/:t/shards/:s/reopen', requireScope('admin'), async (c) => {
    const table = tableParam(c);
    const shard = shardParam(c);
    await sluice.shards.reopen(table, shard);
    c.var.log.warn({ shard }, 'shard reopened');
    return c.json(await sluice.shards.stats(table, shard));
  });

  return app;
}

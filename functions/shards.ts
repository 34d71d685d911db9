/**
 * Shards: stats (readable whether the shard is poisoned or not) and reopen (admin). A
 * reopen of a shard that is not poisoned is refused with 409 SHARD_NOT_POISONED rather
 * than treated as a no-op, so a mistyped shard number does not pass unnoticed.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { ShardParamsSchema } from './openapi/schemas.ts';
import { type Env, pathParams } from './request.ts';

export function shardRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/tables/:t/shards/:s', requireScope('read'), async (c) => {
    const { t, s } = pathParams(c, ShardParamsSchema);
    return c.json(await sluice.shards.stats(t, s));
  });

  app.post('/v1/tables/:t/shards/:s/reopen', requireScope('admin'), async (c) => {
    const { t: table, s: shard } = pathParams(c, ShardParamsSchema);
    await sluice.shards.reopen(table, shard);
    c.var.log.warn({ shard }, 'shard reopened');
    return c.json(await sluice.shards.stats(table, shard));
  });

  return app;
}

/**
 * The scheduler's view for operators (admin): targets in cooldown, and the merge failure
 * ledger page by page. Both only read (I17): no count, cooldown or time changes by looking.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { PageQuerySchema } from './openapi/schemas.ts';
import { type Env, queryParams } from './request.ts';

export function schedulerRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/scheduler/cooldowns', requireScope('admin'), async (c) => {
    return c.json(await sluice.scheduler.cooldowns(queryParams(c, PageQuerySchema)));
  });

  app.get('/v1/scheduler/merge-failures', requireScope('admin'), async (c) => {
    return c.json(await sluice.scheduler.mergeFailures(queryParams(c, PageQuerySchema)));
  });

  return app;
}

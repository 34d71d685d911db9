/**
 * The scheduler's view for operators (admin): targets in cooldown, and the merge failure
 * ledger page by page. Both only read (I17): no count, cooldown or time changes by looking.
 */
import { Hono } from 'hono';
import { MAX_PAGE } from '../shared/page-limit.ts';
import type { ApiDeps } from './app.ts';
import { afterQuery, limitQuery } from './query.ts';
import type { Env } from './request.ts';

export function schedulerRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/scheduler/cooldowns', requireScope('admin'), async (c) => {
    const limit = limitQuery(c, MAX_PAGE, MAX_PAGE);
    return c.json(await sluice.ledger.listCooldowns({ after: afterQuery(c), limit }));
  });

  app.get('/v1/scheduler/merge-failures', requireScope('admin'), async (c) => {
    const limit = limitQuery(c, MAX_PAGE, MAX_PAGE);
    return c.json(await sluice.ledger.listFailures('merge', { after: afterQuery(c), limit }));
  });

  return app;
}

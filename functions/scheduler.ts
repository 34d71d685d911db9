/**
 * The scheduler's view for operators (admin): targets in cooldown, and the merge failure
 * ledger page by page. Both only read (I17): no count, cooldown or time changes by looking.
 */
import { Hono } from 'hono';
import { MAX_LEDGER_PAGE } from '../shared/scheduler/failure-ledger.ts';
import type { ApiDeps } from './app.ts';
import { afterQuery, limitQuery } from './query.ts';
import type { Env } from './request.ts';

export function schedulerRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/v1/scheduler/cooldowns', requireScope('admin'), async (c) => {
    const limit = limitQuery(c, MAX_LEDGER_PAGE, MAX_LEDGER_PAGE);
    return c.json(await sluice.scheduler.cooldowns({ after: afterQuery(c), limit }));
  });

  app.get('/v1/scheduler/merge-failures', requireScope('admin'), async (c) => {
    const limit = limitQuery(c, MAX_LEDGER_PAGE, MAX_LEDGER_PAGE);
    return c.json(await sluice.scheduler.mergeFailures({ after: afterQuery(c), limit }));
  });

  return app;
}

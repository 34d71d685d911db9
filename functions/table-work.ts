/**
 * A table's background work (admin): merge now (202 with the job id and a Location naming
 * its status resource; never gated by a cooldown, refused with 409 TABLE_DRAINED on a
 * drained table), that status, and the drain flag.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { readDrain } from './body.ts';
import { JobParamsSchema } from './openapi/schemas.ts';
import { type Env, pathParams, tableParam } from './request.ts';

export function tableWorkRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/v1/tables/:t/merge', requireScope('admin'), async (c) => {
    const table = tableParam(c);
    const { jobId } = await sluice.tableWork.requestMerge(table, c.var.signal);
    c.var.log.info({ jobId }, 'merge requested');
    c.header('Location', `/v1/tables/${table}/merge/${encodeURIComponent(jobId)}`);
    return c.json({ jobId }, 202);
  });

  app.get('/v1/tables/:t/merge/:jobId', requireScope('admin'), async (c) => {
    const { t, jobId } = pathParams(c, JobParamsSchema);
    return c.json(await sluice.tableWork.mergeStatus(t, jobId));
  });

  app.post('/v1/tables/:t/drain', requireScope('admin'), async (c) => {
    const table = await sluice.tables.describe(tableParam(c));
    const drain = await readDrain(c, sluice.config.limits);
    const state = await sluice.tables.drain(table, drain, c.var.signal);
    c.var.log.warn({ drain }, drain ? 'table drained' : 'table undrained');
    return c.json(state);
  });

  return app;
}

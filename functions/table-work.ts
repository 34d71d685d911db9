/**
 * A table's background work (admin): merge now and optimize now (each 202 with the job id
 * and a Location naming its status resource; jobs of the table's merge lane, never gated by
 * a cooldown, refused with 409 TABLE_DRAINED on a drained table), their status, and the
 * drain flag.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { readDrain } from './body.ts';
import { JobParamsSchema } from './openapi/schemas.ts';
import { type Env, pathParams, tableParam } from './request.ts';

export function tableWorkRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  for (const work of ['merge', 'optimize'] as const) {
    app.post(`/v1/tables/:t/${work}`, requireScope('admin'), async (c) => {
      const table = tableParam(c);
      const { jobId } = await sluice.tableWork.request(work, table, c.var.signal);
      c.var.log.info({ jobId }, `${work} requested`);
      c.header('Location', `/v1/tables/${table}/${work}/${encodeURIComponent(jobId)}`);
      return c.json({ jobId }, 202);
    });

    app.get(`/v1/tables/:t/${work}/:jobId`, requireScope('admin'), async (c) => {
      const { t, jobId } = pathParams(c, JobParamsSchema);
      return c.json(await sluice.tableWork.status(work, t, jobId));
    });
  }

  app.post('/v1/tables/:t/drain', requireScope('admin'), async (c) => {
    const table = await sluice.tables.describe(tableParam(c));
    const drain = await readDrain(c, sluice.config.limits);
    const state = await sluice.tables.drain(table, drain, c.var.signal);
    c.var.log.warn({ drain }, drain ? 'table drained' : 'table undrained');
    return c.json(state);
  });

  return app;
}

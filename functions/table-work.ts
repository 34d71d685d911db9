/**
 * A table's background work (admin): merge now (202 with the job id and a Location naming
 * its status resource; never gated by a cooldown, refused with 409 TABLE_DRAINED on a
 * drained table), that status, and the drain flag.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import { readJsonObject } from './body.ts';
import { DrainBodySchema } from './openapi/schemas.ts';
import { parseWire } from './openapi/wire-input.ts';
import { type Env, tableParam } from './request.ts';

export function tableWorkRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/v1/tables/:t/merge', requireScope('admin'), async (c) => {
    const { jobId } = await sluice.tableWork.requestMerge(tableParam(c), c.var.signal);
    c.var.log.info({ jobId }, 'merge requested');
    c.header('Location', `/v1/tables/${tableParam(c)}/merge/${encodeURIComponent(jobId)}`);
    return c.json({ jobId }, 202);
  });

  app.get('/v1/tables/:t/merge/:jobId', requireScope('admin'), async (c) => {
    return c.json(await sluice.tableWork.mergeStatus(tableParam(c), c.req.param('jobId')));
  });

  app.post('/v1/tables/:t/drain', requireScope('admin'), async (c) => {
    const table = await sluice.tables.describe(tableParam(c));
    const drain = drainOf(await readJsonObject(c, sluice.config.limits));
    const state = await sluice.tables.drain(table.name, drain, c.var.signal);
    c.var.log.warn({ drain }, drain ? 'table drained' : 'table undrained');
    return c.json(state);
  });

  return app;
}

function drainOf(body: Record<string, unknown>): boolean {
  return parseWire(DrainBodySchema, body, '{"drain": true} or {"drain": false}').drain;
}

/** Tables: create, list, describe, declare an index (admin), drop (admin). */
import { Hono } from 'hono';
import pLimit from 'p-limit';
import { type TableDef, tableDefToJSON } from '../shared/table/table-def.ts';
import type { ApiDeps } from './app.ts';
import { readCreateTable, readIndexDeclaration, readSchemaChange } from './body.ts';
import { PageQuerySchema } from './openapi/schemas.ts';
import { type Ctx, type Env, queryParams, tableParam } from './request.ts';

/** Stats read every shard manifest of a table; a page of tables reads this many tables at once. */
const DESCRIBE_CONCURRENCY = 8;

export function tableRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  const describe = async (c: Ctx, def: TableDef) => ({
    ...tableDefToJSON(def),
    schemaVersion: def.schema.version,
    schemaHistory: def.schemaHistory,
    indexes: await sluice.tables.indexes(def, c.var.signal),
    drain: await sluice.tables.isDrained(def.name, c.var.signal),
    stats: await sluice.reads.stats(def, c.var.signal),
  });

  app.post('/v1/tables', requireScope('write'), async (c) => {
    const input = await readCreateTable(c, sluice.config.limits);
    const def = await sluice.tables.create(input, { signal: c.var.signal });
    c.var.log.info({ table: def.name, shards: def.shards }, 'table created');
    c.header('Location', `/v1/tables/${def.name}`);
    return c.json(await describe(c, def), 201);
  });

  app.get('/v1/tables', requireScope('read'), async (c) => {
    const { limit, after } = queryParams(c, PageQuerySchema);
    const page = await sluice.tables.list({ after, limit, signal: c.var.signal });
    const gate = pLimit(DESCRIBE_CONCURRENCY);
    const items = await Promise.all(page.items.map((def) => gate(() => describe(c, def))));
    return c.json({ items, next: page.next });
  });

  app.get('/v1/tables/:t', requireScope('read'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    return c.json(await describe(c, def));
  });

  app.post('/v1/tables/:t/indexes', requireScope('admin'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    const input = await readIndexDeclaration(c, sluice.config.limits);
    const { index, jobId } = await sluice.tables.declareIndex(def, input, c.var.signal);
    c.var.log.info({ index, jobId }, 'index declared');
    if (jobId) c.header('Location', `/v1/tables/${def.name}/optimize/${encodeURIComponent(jobId)}`);
    return c.json({ index, jobId }, 202);
  });

  app.post('/v1/tables/:t/columns', requireScope('admin'), async (c) => {
    const name = tableParam(c);
    const input = await readSchemaChange(c, sluice.config.limits);
    const { table, jobId } = await sluice.tables.addColumns(name, input, c.var.signal);
    c.var.log.info({ schemaVersion: table.schema.version, jobId }, 'columns added');
    if (jobId) c.header('Location', `/v1/tables/${name}/merge/${encodeURIComponent(jobId)}`);
    const { fields } = tableDefToJSON(table).schema;
    return c.json({ schemaVersion: table.schema.version, schema: { fields }, jobId });
  });

  app.delete('/v1/tables/:t', requireScope('admin'), async (c) => {
    const dropped = await sluice.tables.drop(tableParam(c));
    c.var.log.warn({ purgeAfter: dropped.purgeAfter }, 'table dropped');
    return c.json(dropped);
  });

  return app;
}

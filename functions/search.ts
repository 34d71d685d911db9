/**
 * `POST /v1/tables/{t}/search`: nearest neighbours, full text or a filter over the base and
 * every pending row (shared/search/search.ts), answered as JSON rows or, when the client
 * accepts one, an Arrow stream; `_distance` or `_score` rides with each row.
 */
import { Hono } from 'hono';
import { SCORE_COLUMNS } from '../shared/arrow/schema.ts';
import type { ApiDeps } from './app.ts';
import { readSearch } from './body.ts';
import { type Env, tableParam } from './request.ts';
import { arrowResponse, jsonRows, wantsArrow } from './row-answers.ts';

const SCORES = new Set<string>(SCORE_COLUMNS);

export function searchRoutes({ sluice, requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/v1/tables/:t/search', requireScope('read'), async (c) => {
    const def = await sluice.tables.describe(tableParam(c));
    const input = await readSearch(c, sluice.config.limits);
    const { rows, next } = await sluice.reads.search(def.name, input, c.var.signal);
    if (wantsArrow(c)) {
      if (next) c.header('Sluice-Next', next);
      return arrowResponse(c, rows);
    }
    const columns = rows.schema.fields.filter((f) => !SCORES.has(f.name)).map((f) => f.name);
    const json = jsonRows(await sluice.tables.describeHeld(def.name), rows.select(columns));
    const scores = rows.schema.fields.find((f) => SCORES.has(f.name));
    if (scores) {
      const values = rows.getChild(scores.name)!.toArray() as Float32Array;
      json.forEach((row, i) => {
        row[scores.name] = values[i]!;
      });
    }
    return c.json(next === null ? { rows: json } : { rows: json, next });
  });

  return app;
}

/**
 * Liveness and metrics. `/healthz` needs no token and touches nothing: it says the process
 * answers. `/metrics` is the process's Prometheus registry; it needs the `read` scope,
 * because the API may face the internet and a scrape reads job counts from Redis.
 */
import { Hono } from 'hono';
import { registry } from '../shared/metrics.ts';
import type { ApiDeps } from './app.ts';
import type { Env } from './request.ts';

export function healthRoutes({ requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/metrics', requireScope('read'), async (c) =>
    c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType }),
  );
  return app;
}

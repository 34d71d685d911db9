/**
 * Liveness and metrics. `/healthz` needs no token and touches nothing: it says the process
 * answers. `/metrics` is Prometheus text; the operations issue fills it.
 */
import { Hono } from 'hono';
import type { ApiDeps } from './app.ts';
import type { Env } from './request.ts';

export function healthRoutes({ requireScope }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/metrics', requireScope('read'), (c) =>
    c.text('# no Sluice metrics are exported yet\n', 200, { 'Content-Type': 'text/plain; version=0.0.4' }),
  );
  return app;
}

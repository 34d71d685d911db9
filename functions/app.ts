/**
 * The HTTP API (docs/design.md, "HTTP API") as one Hono app over the domain API. The same app runs on
 * the local server (server.ts) and on Lambda (lambda.ts). Routes only translate HTTP to a
 * domain call and back; errors become responses in errors.ts alone.
 */
import { Hono } from 'hono';
import { registerScrapeSource } from '../observability/scrape-source.ts';
import { DeadLetterQueue } from '../queue/dead-letter.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { IdempotencyStore } from '../shared/idempotency.ts';
import type { Sluice } from '../shared/sluice.ts';
import { createAuth, type RequireScope } from './auth.ts';
import { deadLetterRoutes } from './dead-letters.ts';
import { errorResponse, routeNotFound } from './errors.ts';
import { healthRoutes } from './health.ts';
import { httpMetrics } from './http-metrics.ts';
import { openApiRoutes } from './openapi/serve.ts';
import { deadline, type Env, requestContext } from './request.ts';
import { rowRoutes } from './rows.ts';
import { schedulerRoutes } from './scheduler.ts';
import { searchRoutes } from './search.ts';
import { shardRoutes } from './shards.ts';
import { tableWorkRoutes } from './table-work.ts';
import { tableRoutes } from './tables.ts';

export interface AppDeps {
  sluice: Sluice;
  deadLetters: DeadLetterQueue;
  idempotency: IdempotencyStore;
}

export interface ApiDeps extends AppDeps {
  requireScope: RequireScope;
}

export function createApp(deps: AppDeps): Hono<Env> {
  const { config, log } = deps.sluice;
  const api: ApiDeps = { ...deps, requireScope: createAuth(config.tokens) };
  const app = new Hono<Env>();
  app.use(requestContext(log));
  app.use(httpMetrics());
  app.use(deadline(config.http.requestTimeoutMs));
  for (const routes of [
    healthRoutes,
    tableRoutes,
    rowRoutes,
    searchRoutes,
    shardRoutes,
    deadLetterRoutes,
    tableWorkRoutes,
    schedulerRoutes,
  ]) {
    app.route('/', routes(api));
  }
  app.route(
    '/',
    openApiRoutes(() => app.routes),
  );
  app.notFound(routeNotFound);
  app.onError(errorResponse);
  return app;
}

export interface Api {
  readonly app: Hono<Env>;
  close(): Promise<void>;
}

/** The app on a runtime's connections, with the dead-letter queue it inspects and what /metrics reads. */
export function openApi(runtime: Runtime): Api {
  const { sluice } = runtime;
  const { config } = sluice;
  const deadLetters = new DeadLetterQueue(config);
  const idempotency = new IdempotencyStore(runtime.redis, config.redisPrefix, {
    ttlSeconds: config.http.idempotencyTtlSeconds,
    // A write answered 504 may still be putting its WAL entries; its claim outlives that.
    pendingMs: config.http.requestTimeoutMs + config.wal.putTimeoutMs,
    // GC collects a WAL object no sooner after its seq was allocated above the seq floor.
    settleWithinMs: (config.scheduler.gcGraceSeconds * 1000) / 2,
  });
  const scrape = registerScrapeSource(sluice, runtime.redis);
  return {
    app: createApp({ sluice, deadLetters, idempotency }),
    async close() {
      await scrape.close();
      await deadLetters.close();
    },
  };
}

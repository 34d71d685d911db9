/**
 * The dead-letter dashboard: bull-board at `/admin/queues` on the long-running server (not
 * on Lambda), showing every Sluice queue. It is read-only twice over: bull-board's
 * `readOnlyMode` hides and refuses its own mutations, and anything but GET or HEAD is
 * refused here before bull-board sees it. A dead letter is retried through
 * `POST /v1/dead-letters/{id}/retry` alone, which refuses while its shard is poisoned (I7).
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Queue } from 'bullmq';
import { Hono } from 'hono';
import { trimTrailingSlash } from 'hono/trailing-slash';
import type { DeadLetter } from '../queue/dead-letter.ts';
import { openEveryQueue } from '../queue/open-queue.ts';
import { QUEUE } from '../queue/queues.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { SluiceError } from '../shared/errors.ts';
import type { Api } from './app.ts';
import { dashboardAuth } from './dashboard-auth.ts';
import { ownHostOnly } from './dashboard-own-host.ts';
import { DashboardSessions } from './dashboard-session.ts';
import { DeadLetterBoardAdapter } from './dead-letter-board.ts';
import type { Env } from './request.ts';

export const DASHBOARD_PATH = '/admin/queues';

export interface Dashboard {
  /** Routes under DASHBOARD_PATH; mount with `app.route(DASHBOARD_PATH, dashboard.app)`. */
  readonly app: Hono<Env>;
  close(): Promise<void>;
}

export function openDashboard(runtime: Runtime): Dashboard {
  const { config } = runtime.sluice;
  const queues = openEveryQueue(config);
  const board = new HonoAdapter(serveStatic).setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) =>
      queue.name === QUEUE.deadLetter
        ? new DeadLetterBoardAdapter(queue as Queue<DeadLetter>)
        : new BullMQAdapter(queue, { readOnlyMode: true }),
    ),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Sluice' } },
  });
  const sessions = new DashboardSessions(runtime.redis, config.redisPrefix);
  const app = new Hono<Env>();
  // bull-board's pages link to `/admin/queues/`; its routes answer `/admin/queues`.
  app.use(trimTrailingSlash());
  app.use(dashboardAuth(config.tokens, sessions, DASHBOARD_PATH));
  app.use(async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      throw new SluiceError(
        'FORBIDDEN',
        'the dashboard is read-only: retry a dead letter with POST /v1/dead-letters/{id}/retry',
      );
    }
    await next();
  });
  app.use(ownHostOnly);
  app.route('/', board.registerPlugin() as unknown as Hono<Env>);
  return {
    app,
    async close() {
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/** `api` with the dashboard mounted, for the long-running server; closing it closes both. */
export function withDashboard(api: Api, runtime: Runtime): Api {
  const dashboard = openDashboard(runtime);
  api.app.route(DASHBOARD_PATH, dashboard.app);
  return {
    app: api.app,
    async close() {
      await dashboard.close();
      await api.close();
    },
  };
}

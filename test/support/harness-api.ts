/**
 * The HTTP API of an in-process harness, served on a random loopback port: for tests that
 * need the fault-injecting store behind real HTTP; with `dashboard`, the dashboard too.
 */
import { openApi } from '../../functions/app.ts';
import { withDashboard } from '../../functions/dashboard.ts';
import { startServer } from '../../functions/server.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { Harness } from './harness.ts';
import { type Call, httpClient } from './http-client.ts';

export interface ServedHarness {
  url: string;
  call: Call;
  close(): Promise<void>;
}

/** The harness as a runtime for the API to open on; closing it is the harness's own close. */
export function harnessRuntime(h: Harness): Runtime {
  return { sluice: h.sluice, parts: h.parts, scheduler: h.scheduler, redis: h.redis, close: async () => {} };
}

export async function serveHarness(
  h: Harness,
  options: { dashboard?: boolean } = {},
): Promise<ServedHarness> {
  const runtime = harnessRuntime(h);
  const api = options.dashboard ? withDashboard(openApi(runtime), runtime) : openApi(runtime);
  const http = await startServer(api.app, h.config, h.sluice.log);
  return {
    url: http.url,
    call: httpClient(http.url),
    async close() {
      await http.close();
      await api.close();
    },
  };
}

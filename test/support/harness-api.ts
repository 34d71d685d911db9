/**
 * The HTTP API of an in-process harness, served on a random loopback port: for tests that
 * need the fault-injecting store behind real HTTP; with `dashboard`, the dashboard too.
 */
import { openApi } from '../../functions/app.ts';
import { withDashboard } from '../../functions/dashboard.ts';
import { startServer } from '../../functions/server.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { Logger } from '../../shared/log.ts';
import { type ConfigOverrides, createHarness, type Harness } from './harness.ts';
import { type Call, httpClient, type TestTokens, testTokens } from './http-client.ts';

export interface ServedHarness {
  url: string;
  call: Call;
  close(): Promise<void>;
}

/** The harness as a runtime for the API to open on; closing it is the harness's own close. */
export function harnessRuntime(h: Harness): Runtime {
  return { sluice: h.sluice, parts: h.parts, scheduler: h.scheduler, redis: h.redis, close: async () => {} };
}

/**
 * The API of a second process on the harness's store and Redis (`h.otherProcess()`), served
 * beside the harness's own: for what one process must learn from another.
 */
export async function serveOtherProcess(h: Harness): Promise<ServedHarness> {
  const other = h.otherProcess();
  const served = await serveRuntime(h, { ...harnessRuntime(h), sluice: other.sluice, parts: other.parts });
  return {
    ...served,
    async close() {
      await served.close();
      await other.parts.wal.settle();
    },
  };
}

export function serveHarness(h: Harness, options: { dashboard?: boolean } = {}): Promise<ServedHarness> {
  return serveRuntime(h, harnessRuntime(h), options);
}

async function serveRuntime(
  h: Harness,
  runtime: Runtime,
  options: { dashboard?: boolean } = {},
): Promise<ServedHarness> {
  const api = options.dashboard ? withDashboard(openApi(runtime), runtime) : openApi(runtime);
  // Port 0: test files run side by side, and each server takes a port of its own.
  const http = await startServer(api.app, { ...h.config, port: 0 }, h.sluice.log);
  return {
    url: http.url,
    call: httpClient(http.url),
    async close() {
      await http.close();
      await api.close();
    },
  };
}

export interface TestApi extends ServedHarness {
  h: Harness;
  tokens: TestTokens;
}

/** A harness that accepts fresh test tokens, served over HTTP; closing it closes both. */
export async function serveTestApi(
  overrides: ConfigOverrides = {},
  options: { dashboard?: boolean; log?: Logger; clock?: () => number } = {},
): Promise<TestApi> {
  const tokens = testTokens();
  const h = await createHarness(
    { ...overrides, tokens: JSON.parse(tokens.env) },
    { log: options.log, clock: options.clock },
  );
  const served = await serveHarness(h, { dashboard: options.dashboard });
  return {
    ...served,
    h,
    tokens,
    async close() {
      await served.close();
      await h.close();
    },
  };
}

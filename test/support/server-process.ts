/**
 * Sluice's HTTP API as a real child process — `npm start`'s entry (`infra/local/start.ts`)
 * on port 0 — pointed at a test's Redis namespace and store directory. The URL comes from
 * its "sluice ready" line.
 */
import { type Call, httpClient, type TestTokens, testTokens } from './http-client.ts';
import { type LoggedProcess, spawnLogged } from './logged-process.ts';
import { createRedisNamespace, type RedisNamespace } from './redis.ts';
import { createTempDir } from './temp-dir.ts';

export interface ServerProcess extends LoggedProcess {
  readonly url: string;
}

export interface ServerOptions {
  storeDir: string;
  redisUrl: string;
  redisPrefix: string;
  /** `all` runs the workers in the same process; `api` only answers requests. */
  role: 'all' | 'api';
  /** More SLUICE_* variables. */
  env?: Record<string, string>;
}

export async function spawnServer(options: ServerOptions): Promise<ServerProcess> {
  const server = spawnLogged('infra/local/start.ts', [], {
    ...process.env,
    SLUICE_HOST: '127.0.0.1',
    SLUICE_PORT: '0',
    SLUICE_ROLE: options.role,
    SLUICE_STORE_URL: `file://${options.storeDir}`,
    SLUICE_REDIS_URL: options.redisUrl,
    SLUICE_REDIS_PREFIX: options.redisPrefix,
    SLUICE_LOG_LEVEL: 'info',
    SLUICE_LOG_PRETTY: 'false',
    ...options.env,
  });
  // A server that never says it is ready is stopped, not left running past its caller.
  const ready = await server
    .waitForLine(
      (line) => line.msg === 'sluice ready' && typeof line.url === 'string',
      'the server to be ready',
      30_000,
    )
    .catch(async (err: unknown) => {
      await server.stop();
      throw err;
    });
  return Object.assign(server, { url: ready.url as string });
}

/** A server process with a store directory, Redis namespace and tokens of its own. */
export interface ServedProcess {
  readonly server: ServerProcess;
  /** The file-system store's directory, for reading the base with LanceDB beside the server. */
  readonly storeDir: string;
  readonly namespace: RedisNamespace;
  readonly tokens: TestTokens;
  readonly call: Call;
  /** Stops the server (answering its exit code) and removes its data. */
  stop(): Promise<number | null>;
}

export async function serveProcess(
  label: string,
  options: { role: ServerOptions['role']; env?: Record<string, string> },
): Promise<ServedProcess> {
  const dir = await createTempDir(label);
  const namespace = createRedisNamespace();
  const tokens = testTokens();
  const server = await spawnServer({
    storeDir: dir.path,
    redisUrl: namespace.url,
    redisPrefix: namespace.prefix,
    role: options.role,
    env: { SLUICE_TOKENS: tokens.env, ...options.env },
  });
  return {
    server,
    storeDir: dir.path,
    namespace,
    tokens,
    call: httpClient(server.url),
    async stop() {
      const code = await server.stop();
      await namespace.cleanup();
      await dir.cleanup();
      return code;
    },
  };
}

/** The rows the server counted as written, in upserts that it acked. */
export async function upsertedRows(served: ServedProcess): Promise<number> {
  const res = await served.call('GET', '/metrics', { token: served.tokens.read });
  const line = res.bytes
    .toString()
    .split('\n')
    .find(
      (l) =>
        l.startsWith('sluice_write_rows_total{') && l.includes('op="upsert"') && l.includes('outcome="ok"'),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/**
 * Everything Sluice runs in one local process, behind one handle: the object store, the
 * Redis connection, and by SLUICE_ROLE the HTTP API (`api`), the workers of SLUICE_QUEUES
 * (`worker`) or both (`all`).
 */
import { openApi } from '../../functions/app.ts';
import { withDashboard } from '../../functions/dashboard.ts';
import { type HttpServer, startServer } from '../../functions/server.ts';
import { parseQueues, startWorkers } from '../../jobs/workers.ts';
import { openRuntime } from '../../runtime/runtime.ts';
import type { Config } from '../../shared/config.ts';
import { SluiceError } from '../../shared/errors.ts';
import { type Logger, silentLogger } from '../../shared/log.ts';
import { createRedis, type RedisClient } from '../../shared/redis/connection.ts';
import { assertConditionalWrites } from '../../shared/store/conditional-probe.ts';
import type { ObjectStore } from '../../shared/store/object-store.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { redactRedisUrl } from './redis.ts';

const REDIS_PING_TIMEOUT_MS = 5_000;

export interface LocalSluice {
  readonly store: ObjectStore;
  readonly redis: RedisClient;
  /** Where the HTTP API listens; null when this process runs workers only. */
  readonly url: string | null;
  close(): Promise<void>;
}

export async function runLocal(config: Config, log: Logger = silentLogger): Promise<LocalSluice> {
  const store = openStore(config);
  let redis: RedisClient;
  try {
    // Before anything is accepted: a store that ignores conditional writes would lose data.
    await assertConditionalWrites(store);
    redis = await connectRedis(config, log);
  } catch (err) {
    await store.close();
    throw err;
  }
  const runtime = openRuntime(config, log, store);
  const workers = config.role === 'api' ? null : startWorkers(runtime.sluice, parseQueues(config.queues));
  const api = config.role === 'worker' ? null : withDashboard(openApi(runtime), runtime);
  const close = async (server: HttpServer | null) => {
    // Requests in progress finish before the workers and connections they use go away.
    await server?.close();
    await workers?.close();
    await api?.close();
    await runtime.close();
    await redis.quit();
  };
  let server: HttpServer | null;
  try {
    server = api ? await startServer(api.app, config, log) : null;
  } catch (err) {
    await close(null);
    throw err;
  }
  return { store, redis, url: server?.url ?? null, close: () => close(server) };
}

async function connectRedis(config: Config, log: Logger): Promise<RedisClient> {
  const where = redisWhere(config);
  const redis = createRedis(config);
  redis.on('error', (err: Error) => log.warn({ err, ...where }, 'Redis connection error'));
  // The connection waits out outages on purpose (BullMQ needs that); at start-up an
  // unreachable Redis must fail instead of hanging.
  const timeout = AbortSignal.timeout(REDIS_PING_TIMEOUT_MS);
  try {
    await Promise.race([redis.ping(), rejectOnAbort(timeout)]);
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new SluiceError(
      'REDIS_UNAVAILABLE',
      `cannot reach Redis at ${Object.values(where)[0]}: ${(err as Error).message}`,
      where,
      { cause: err },
    );
  }
}

/** Where this process looks for Redis, fit for a log line: a cluster's seeds, or the URL without its password. */
export function redisWhere(config: Config): { redisUrl: string } | { redisClusterNodes: string } {
  return config.redisClusterNodes === ''
    ? { redisUrl: redactRedisUrl(config.redisUrl) }
    : { redisClusterNodes: config.redisClusterNodes };
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

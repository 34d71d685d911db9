/**
 * Everything Sluice runs in one local process, behind one handle. Today that is the object
 * store and the Redis connection; the HTTP API and the queues' workers join them here.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config.ts';
import { SluiceError } from '../../shared/errors.ts';
import { type Logger, silentLogger } from '../../shared/log.ts';
import { createRedis } from '../../shared/redis/connection.ts';
import type { ObjectStore } from '../../shared/store/object-store.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { redactRedisUrl } from './redis.ts';

const REDIS_PING_TIMEOUT_MS = 5_000;

export interface LocalSluice {
  readonly store: ObjectStore;
  readonly redis: Redis;
  close(): Promise<void>;
}

export async function runLocal(config: Config, log: Logger = silentLogger): Promise<LocalSluice> {
  const store = openStore(config);
  let redis: Redis;
  try {
    redis = await connectRedis(config.redisUrl, log);
  } catch (err) {
    await store.close();
    throw err;
  }
  return {
    store,
    redis,
    async close() {
      await redis.quit();
      await store.close();
    },
  };
}

async function connectRedis(url: string, log: Logger): Promise<Redis> {
  const redis = createRedis(url);
  redis.on('error', (err: Error) =>
    log.warn({ err, redisUrl: redactRedisUrl(url) }, 'Redis connection error'),
  );
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
      `cannot reach Redis at ${redactRedisUrl(url)}: ${(err as Error).message}`,
      { redisUrl: redactRedisUrl(url) },
      { cause: err },
    );
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

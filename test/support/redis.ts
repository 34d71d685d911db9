/**
 * Every test gets its own Redis namespace: a unique prefix for keys and BullMQ queues on
 * the test Redis, and connections that are closed and keys that are deleted on cleanup.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedis } from '../../shared/redis/connection.ts';

export const testRedisUrl = process.env.SLUICE_REDIS_URL || 'redis://127.0.0.1:6379';

export interface RedisNamespace {
  readonly url: string;
  /** `sluice-test-<random>`: pass as SLUICE_REDIS_PREFIX or BullMQ's `prefix`. */
  readonly prefix: string;
  /** A new connection fit for BullMQ; closed by `cleanup()`. */
  connect(): Redis;
  /** Deletes every key under the prefix and closes the connections. */
  cleanup(): Promise<void>;
}

export function createRedisNamespace(url: string = testRedisUrl): RedisNamespace {
  const prefix = `sluice-test-${randomBytes(6).toString('hex')}`;
  const connections: Redis[] = [];
  return {
    url,
    prefix,
    connect() {
      const connection = createRedis(url);
      connections.push(connection);
      return connection;
    },
    async cleanup() {
      const admin = createRedis(url);
      try {
        await deleteKeys(admin, `${prefix}*`);
      } finally {
        admin.disconnect();
        for (const connection of connections.splice(0)) connection.disconnect();
      }
    },
  };
}

async function deleteKeys(redis: Redis, match: string): Promise<void> {
  for await (const keys of redis.scanStream({ match, count: 1000 })) {
    if ((keys as string[]).length > 0) await redis.unlink(...(keys as string[]));
  }
}

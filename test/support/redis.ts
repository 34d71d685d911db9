/**
 * Every test gets its own Redis namespace: a unique prefix for keys and BullMQ queues on
 * the test Redis, and connections that are closed and keys that are deleted on cleanup.
 * The test Redis is SLUICE_REDIS_URL, or the Redis Cluster of SLUICE_REDIS_CLUSTER_NODES.
 */
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { createRedis, type RedisClient, type RedisTarget } from '../../shared/redis/connection.ts';

export const testRedisUrl = process.env.SLUICE_REDIS_URL || 'redis://127.0.0.1:6379';

export const testRedisTarget: Required<RedisTarget> = {
  redisUrl: testRedisUrl,
  redisClusterNodes: process.env.SLUICE_REDIS_CLUSTER_NODES ?? '',
};

export interface RedisNamespace {
  readonly url: string;
  readonly target: Required<RedisTarget>;
  /** `sluice-test-<random>`: pass as SLUICE_REDIS_PREFIX or BullMQ's `prefix`. */
  readonly prefix: string;
  /** A new connection fit for BullMQ; closed by `cleanup()`. */
  connect(): RedisClient;
  /** Deletes every key under the prefix and closes the connections. */
  cleanup(): Promise<void>;
}

export function createRedisNamespace(target: RedisTarget | string = testRedisTarget): RedisNamespace {
  const full: Required<RedisTarget> =
    typeof target === 'string'
      ? { redisUrl: target, redisClusterNodes: '' }
      : { redisUrl: target.redisUrl, redisClusterNodes: target.redisClusterNodes ?? '' };
  const prefix = `sluice-test-${randomBytes(6).toString('hex')}`;
  const connections: RedisClient[] = [];
  return {
    url: full.redisUrl,
    target: full,
    prefix,
    connect() {
      const connection = createRedis(full);
      connections.push(connection);
      return connection;
    },
    async cleanup() {
      const admin = createRedis(full);
      try {
        await deleteKeys(admin, `${prefix}*`);
      } finally {
        admin.disconnect();
        for (const connection of connections.splice(0)) connection.disconnect();
      }
    },
  };
}

/** Every key matching `match`, from every master when `redis` is a cluster. */
export async function keysMatching(redis: RedisClient, match: string): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const node of nodes) {
    for await (const found of node.scanStream({ match, count: 1000 })) keys.push(...(found as string[]));
  }
  return keys;
}

/** Deletes every key matching `match`; one key at a time, since keys of a cluster may sit in any slot. */
export async function deleteKeys(redis: RedisClient, match: string): Promise<void> {
  const keys = await keysMatching(redis, match);
  await Promise.all(keys.map((key) => redis.unlink(key)));
}

/** Every key under `prefix` at `url`, through a connection of its own (the process's may be closed). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const connection = createRedis({ redisUrl: url });
  await deleteKeys(connection, `${prefix}*`);
  connection.disconnect();
}

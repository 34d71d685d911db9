/**
 * BullMQ's connections come from Sluice's one connection factory. BullMQ builds a plain
 * ioredis client from connection options, which cannot reach a Redis Cluster, and it never
 * closes a client it was handed. So every Queue and Worker gets options that carry Sluice's
 * Redis target, and BullMQ's client factory turns those into clients through
 * `createRedis`: BullMQ still owns them (a Worker's blocking connection included) and
 * closes them with the queue.
 */
import { type ConnectionOptions, createIORedisClient, RedisConnection } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../shared/config.ts';
import { createRedis, type RedisTarget } from '../shared/redis/connection.ts';

const TARGET = Symbol('sluice.redisTarget');

type TargetedOptions = RedisOptions & { [TARGET]?: RedisTarget };

export function queueConnection(config: Config): ConnectionOptions {
  RedisConnection.clientFactory = clientFor;
  const options: TargetedOptions = {
    maxRetriesPerRequest: null,
    [TARGET]: { redisUrl: config.redisUrl, redisClusterNodes: config.redisClusterNodes },
  };
  return options;
}

function clientFor(options: TargetedOptions): ReturnType<typeof createIORedisClient> {
  const target = options[TARGET];
  if (target) {
    const { connectionName } = options;
    return createIORedisClient(createRedis(target, connectionName ? { connectionName } : {}));
  }
  // Options built elsewhere get the client BullMQ itself would have made of them.
  const { url, ...rest } = options as TargetedOptions & { url?: string };
  return createIORedisClient(url ? new Redis(url, rest) : new Redis(rest));
}

/**
 * BullMQ's connections come from Sluice's connection factory (queue/queue-connection.ts),
 * installed as BullMQ's client factory. Sluice's queues get their connections from it; a
 * queue built with plain connection options still gets the client BullMQ would have made.
 */
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { queueConnection } from '../../queue/queue-connection.ts';
import { QUEUE, queueOptions } from '../../queue/queues.ts';
import { loadConfig } from '../../shared/config.ts';
import {
  createRedisNamespace,
  keysMatching,
  type RedisNamespace,
  testRedisTarget,
} from '../support/redis.ts';

describe('BullMQ connections through the factory', () => {
  let namespace: RedisNamespace;
  afterEach(async () => {
    await namespace.cleanup();
  });

  it("Sluice's queues add and count jobs on the configured Redis, under the queue's hash tag", async () => {
    namespace = createRedisNamespace();
    const config = loadConfig({}, { ...testRedisTarget, redisPrefix: namespace.prefix });
    const queue = new Queue(QUEUE.seal, queueOptions(config, QUEUE.seal));
    await queue.add('seal', { table: 't', shard: 0 });
    expect(await queue.count()).toBe(1);
    await queue.close();
    const admin = namespace.connect();
    expect((await keysMatching(admin, `${namespace.prefix}:{seal}:seal:*`)).length).toBeGreaterThan(0);
  });

  it('a queue with plain connection options still works once the factory is installed', async () => {
    namespace = createRedisNamespace();
    queueConnection(loadConfig({}, testRedisTarget));
    const queue = new Queue('plain', {
      connection: { host: '127.0.0.1', port: Number(new URL(testRedisTarget.redisUrl).port || 6379) },
      prefix: namespace.prefix,
    });
    await queue.add('job', {});
    expect(await queue.count()).toBe(1);
    await queue.close();
    const admin = namespace.connect();
    expect((await keysMatching(admin, `${namespace.prefix}:plain:*`)).length).toBeGreaterThan(0);
  });
});

/**
 * The connection factory: SLUICE_REDIS_CLUSTER_NODES picks ioredis' cluster client, with
 * the TLS, user name and password of SLUICE_REDIS_URL on every node; without it, one node.
 * Bad settings stop the process at start with a message that says what to send.
 */
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.ts';
import { isSluiceError } from '../../../shared/errors.ts';
import { clusterSeeds, createRedis, type RedisClient } from '../../../shared/redis/connection.ts';

/** Built, looked at, and dropped before it gets anywhere: nothing listens on these ports. */
function inspect(client: RedisClient): RedisClient {
  client.on('error', () => undefined);
  client.disconnect();
  return client;
}

describe('Redis connection factory', () => {
  it('reads SLUICE_REDIS_CLUSTER_NODES into seed nodes', () => {
    const config = loadConfig({ SLUICE_REDIS_CLUSTER_NODES: 'a.example:7000,10.0.0.2:7001' });
    expect(clusterSeeds(config)).toEqual([
      { host: 'a.example', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(clusterSeeds(loadConfig({}))).toEqual([]);
  });

  it('refuses seeds that are not host:port, saying what to send', () => {
    for (const bad of ['a.example', 'a.example:7000, b:7001', 'a:7000,', ':7000x']) {
      let caught: unknown;
      try {
        loadConfig({ SLUICE_REDIS_CLUSTER_NODES: bad });
      } catch (err) {
        caught = err;
      }
      expect(isSluiceError(caught, 'INVALID_CONFIG')).toBe(true);
      expect((caught as Error).message).toContain('SLUICE_REDIS_CLUSTER_NODES: comma-separated host:port');
    }
  });

  it('makes one-node clients without seeds and cluster clients with them', () => {
    expect(inspect(createRedis({ redisUrl: 'redis://127.0.0.1:1' }))).toBeInstanceOf(Redis);
    const cluster = inspect(createRedis({ redisUrl: 'redis://127.0.0.1', redisClusterNodes: '127.0.0.1:1' }));
    expect(cluster).toBeInstanceOf(Cluster);
    expect((cluster as Cluster).options.redisOptions).toMatchObject({ maxRetriesPerRequest: null });
    expect((cluster as Cluster).options.redisOptions?.tls).toBeUndefined();
  });

  it('gives every cluster node the TLS, user name and password of SLUICE_REDIS_URL', () => {
    const cluster = inspect(
      createRedis({
        redisUrl: 'rediss://sluice:p%40ss@ignored.example:6379',
        redisClusterNodes: '127.0.0.1:1',
      }),
    ) as Cluster;
    expect(cluster.options.redisOptions).toMatchObject({ username: 'sluice', password: 'p@ss', tls: {} });
    expect(cluster.options.dnsLookup).toBeTypeOf('function');
  });

  it('refuses a SLUICE_REDIS_URL that cannot carry a cluster’s credentials', () => {
    expect(() => createRedis({ redisUrl: 'http://x', redisClusterNodes: '127.0.0.1:1' })).toThrow(
      /must start with redis:\/\/ or rediss:\/\//,
    );
    expect(() => createRedis({ redisUrl: 'not a url', redisClusterNodes: '127.0.0.1:1' })).toThrow(
      /send redis:\/\/\[user:password@\]host:port/,
    );
  });
});

/**
 * The one place a Redis connection is made: Sluice's own commands, BullMQ's queues and
 * workers, the tests and the benchmarks all come through `createRedis`, so a single node
 * and a Redis Cluster are the same to everything above.
 */
import { Cluster, type ClusterNode, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';

/** A connection to one Redis node or to a Redis Cluster; both speak the same commands. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: `redisUrl` alone for one node; with cluster seeds, the URL gives TLS and credentials. */
export type RedisTarget = Pick<Config, 'redisUrl'> & Partial<Pick<Config, 'redisClusterNodes'>>;

export interface ConnectionOptions {
  /** CLIENT SETNAME of the connection (BullMQ names its workers' blocking connections). */
  connectionName?: string;
}

/**
 * BullMQ needs `maxRetriesPerRequest: null` on worker connections; Sluice's own commands
 * use the same setting so that a Redis blip delays a request instead of failing it with
 * an opaque ioredis error.
 */
export function createRedis(target: RedisTarget, options: ConnectionOptions = {}): RedisClient {
  const seeds = clusterSeeds(target);
  if (seeds.length === 0) {
    return new Redis(target.redisUrl, {
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
      lazyConnect: false,
      ...options,
    });
  }
  const node = nodeOptions(target.redisUrl);
  return new Cluster(seeds, {
    redisOptions: { ...node, maxRetriesPerRequest: null, ...options },
    // TLS certificates of ElastiCache and MemoryDB name the configuration endpoint, while
    // the cluster answers with node IPs: connecting by the announced name keeps the check.
    ...(node.tls ? { dnsLookup: (address, lookup) => lookup(null, address) } : {}),
  });
}

/** The seed nodes of `SLUICE_REDIS_CLUSTER_NODES`; empty when Sluice runs on one node. */
export function clusterSeeds(target: RedisTarget): ClusterNode[] {
  const list = target.redisClusterNodes ?? '';
  if (list === '') return [];
  return list.split(',').map((seed) => {
    const colon = seed.lastIndexOf(':');
    return { host: seed.slice(0, colon), port: Number(seed.slice(colon + 1)) };
  });
}

/** The TLS, user name and password of `redisUrl`, applied to every node of a cluster. */
function nodeOptions(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'SLUICE_REDIS_URL is not a URL: send redis://[user:password@]host:port',
      {},
      { cause: err },
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_REDIS_URL must start with redis:// or rediss://, not ${parsed.protocol}//`,
      {
        protocol: parsed.protocol,
      },
    );
  }
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

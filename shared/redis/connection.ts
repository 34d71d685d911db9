import { Redis } from 'ioredis';

/**
 * BullMQ needs `maxRetriesPerRequest: null` on worker connections; Sluice's own commands
 * use the same setting so that a Redis blip delays a request instead of failing it with
 * an opaque ioredis error.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/**
 * The scrape-time gauges of a process that serves /metrics (the API, a worker process):
 * BullMQ job counts of every queue, the shards whose poison is cached and how far each
 * table's base lags its writes, read from Redis
 * when Prometheus scrapes — nothing polls in the background. The queues ride on the
 * process's own Redis connection, so counting adds no connection.
 */
import { openEveryQueue } from '../queue/open-queue.ts';
import { queueJobCounts } from '../queue/queues.ts';
import { addScrapeSource } from '../shared/metrics.ts';
import type { RedisClient } from '../shared/redis/connection.ts';
import type { Sluice } from '../shared/sluice.ts';

export interface ScrapeRegistration {
  close(): Promise<void>;
}

export function registerScrapeSource(sluice: Sluice, redis: RedisClient): ScrapeRegistration {
  const queues = openEveryQueue(sluice.config, redis);
  // Each queue would repeat every error of the one connection; a scrape that cannot read Redis shows as absent gauges.
  for (const queue of queues) queue.on('error', () => undefined);
  const remove = addScrapeSource({
    poisonedShards: () => sluice.shards.poisonedCount(),
    jobCounts: () => queueJobCounts(queues),
    tableLags: () => sluice.sampler.tableLags(),
  });
  return {
    async close() {
      remove();
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

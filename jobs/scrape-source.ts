/**
 * The scrape-time gauges of a process that serves /metrics (the API, a worker process):
 * BullMQ job counts of every queue and the shards whose poison is cached, read from Redis
 * when Prometheus scrapes — nothing polls in the background. The queues ride on the
 * process's own Redis connection, so counting adds no connection.
 */
import { Queue } from 'bullmq';
import { addScrapeSource } from '../shared/metrics.ts';
import type { RedisClient } from '../shared/redis/connection.ts';
import type { Sluice } from '../shared/sluice.ts';
import { QUEUE, queueJobCounts, queueOptions } from './queues.ts';

export interface ScrapeRegistration {
  close(): Promise<void>;
}

export function registerScrapeSource(sluice: Sluice, redis: RedisClient): ScrapeRegistration {
  const queues = Object.values(QUEUE).map((name) => {
    const queue = new Queue(name, queueOptions(sluice.config, name, redis));
    // Each queue would repeat every error of the one connection; a scrape that cannot read Redis shows as absent gauges.
    queue.on('error', () => undefined);
    return queue;
  });
  const remove = addScrapeSource({
    poisonedShards: () => sluice.shardState.poisonedCount(),
    jobCounts: () => queueJobCounts(queues),
  });
  return {
    async close() {
      remove();
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}

/**
 * The composition root (docs/design.md, "Layers and rooms"): opens what every Sluice
 * process needs — the store, a Redis connection, the BullMQ work scheduler and the domain
 * services on top — and closes it again in the right order. The HTTP hosts (functions/)
 * and the worker process (jobs/) both start here, so neither imports the other.
 */

import { BullmqWorkScheduler } from '../queue/bullmq-work-scheduler.ts';
import type { Config } from '../shared/config.ts';
import type { Logger } from '../shared/log.ts';
import { createRedis, type RedisClient } from '../shared/redis/connection.ts';
import { openSluice, type Sluice } from '../shared/sluice.ts';
import type { SluiceParts } from '../shared/sluice-parts.ts';
import type { ObjectStore } from '../shared/store/object-store.ts';
import { openStore } from '../shared/store/open-store.ts';

export interface Runtime {
  readonly sluice: Sluice;
  /** The lower-level parts the services were built on, for the tests and benchmarks that look inside. */
  readonly parts: SluiceParts;
  readonly scheduler: BullmqWorkScheduler;
  /** Sluice's own Redis connection, for the HTTP functions' idempotency keys. */
  readonly redis: RedisClient;
  close(): Promise<void>;
}

export function openRuntime(config: Config, log: Logger, store: ObjectStore = openStore(config)): Runtime {
  const redis = createRedis(config);
  const scheduler = new BullmqWorkScheduler(config);
  const { sluice, parts } = openSluice({ config, store, redis, scheduler, log });
  return {
    sluice,
    parts,
    scheduler,
    redis,
    async close() {
      await parts.wal.settle();
      await scheduler.close();
      await redis.quit();
      await store.close();
    },
  };
}

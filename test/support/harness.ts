/**
 * A whole Sluice in the test process, on real parts: the file-system store in a temp dir
 * (behind the fault-injecting wrapper, which passes everything through until told
 * otherwise), a Redis namespace of its own, and real BullMQ workers.
 */

import { startWorkers, type WorkerSet } from '../../jobs/workers.ts';
import { BullmqWorkScheduler } from '../../queue/bullmq-work-scheduler.ts';
import type { WorkerQueue } from '../../queue/queues.ts';
import { type Config, loadConfig } from '../../shared/config.ts';
import { createLogger, type Logger } from '../../shared/log.ts';
import type { RedisClient } from '../../shared/redis/connection.ts';
import { type ShardKeys, shardKeys } from '../../shared/redis/shard-keys.ts';
import { type OpenedSluice, openSluice, type Sluice } from '../../shared/sluice.ts';
import type { SluiceParts } from '../../shared/sluice-parts.ts';
import { FaultyStore } from '../../shared/store/faulty-store.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import type { ObjectStore } from '../../shared/store/object-store.ts';
import type { TableDef } from '../../shared/table/table-def.ts';
import { createRedisNamespace, type RedisNamespace, testRedisTarget } from './redis.ts';
import { createTempDir, type TempDir } from './temp-dir.ts';

export type ConfigOverrides = Parameters<typeof loadConfig>[1];

export interface Harness {
  readonly config: Config;
  readonly dir: TempDir;
  readonly namespace: RedisNamespace;
  readonly store: FaultyStore;
  readonly redis: RedisClient;
  readonly sluice: Sluice;
  /** The parts the services were built on, for tests that look inside (manifests, shard state, the ledger). */
  readonly parts: SluiceParts;
  /** The Redis keys of one shard under this harness's prefix. */
  shardKeys(table: string, shard: number): ShardKeys;
  readonly scheduler: BullmqWorkScheduler;
  workers: WorkerSet | null;
  startWorkers(queues?: readonly WorkerQueue[]): WorkerSet;
  createTable(input: Record<string, unknown>): Promise<TableDef>;
  /** Another process's domain on this harness's Redis and `store` (this harness's, or one wrapping it). */
  otherProcess(store?: ObjectStore): OpenedSluice;
  close(): Promise<void>;
}

/** Fast defaults for tests; each test overrides what it exercises. */
const TEST_DEFAULTS: ConfigOverrides = {
  logLevel:
    process.env.SLUICE_TEST_LOG_LEVEL === undefined
      ? 'silent'
      : (process.env.SLUICE_TEST_LOG_LEVEL as 'info'),
  flush: { maxRetries: 8, retryBaseMs: 10, retryMaxMs: 100 },
  wal: { groupCommit: false, putTimeoutMs: 2_000, holeTimeoutMs: 5_000 },
  workers: { lockDurationMs: 5_000, stalledIntervalMs: 2_000, shutdownGraceSeconds: 5 },
};

/**
 * `log`: a logger the test reads back (log-capture.ts) instead of the configured one;
 * `clock`: the time retention's cutoff is taken from.
 */
export async function createHarness(
  overrides: ConfigOverrides = {},
  options: { log?: Logger; clock?: () => number } = {},
): Promise<Harness> {
  const dir = await createTempDir('harness');
  // Shard state, BullMQ and the namespace's cleanup all use the Redis the test chose, so a
  // test that restarts its own Redis wipes seq counters, in-flight marks and poison too.
  const namespace = createRedisNamespace({
    redisUrl: overrides.redisUrl ?? testRedisTarget.redisUrl,
    redisClusterNodes: overrides.redisClusterNodes ?? testRedisTarget.redisClusterNodes,
  });
  const config = loadConfig(
    {},
    mergeOverrides(TEST_DEFAULTS, {
      ...namespace.target,
      redisPrefix: namespace.prefix,
      storeUrl: `file://${dir.path}`,
      ...overrides,
    }),
  );
  const store = new FaultyStore(new FsStore(dir.path));
  const log = options.log ?? createLogger({ level: config.logLevel });
  const redis = namespace.connect();
  redis.on('error', (err) => log.debug({ err }, 'harness Redis connection error'));
  const scheduler = new BullmqWorkScheduler(config);
  const { clock } = options;
  const { sluice, parts } = openSluice({ config, store, redis, scheduler, log, clock });
  const harness: Harness = {
    config,
    dir,
    namespace,
    store,
    redis,
    sluice,
    parts,
    scheduler,
    workers: null,
    startWorkers(queues = ['seal', 'flush']) {
      harness.workers = startWorkers(sluice, queues);
      return harness.workers;
    },
    shardKeys: (table, shard) => shardKeys(config.redisPrefix, table, shard),
    createTable: (input) => sluice.tables.create(input),
    otherProcess: (other = store) =>
      openSluice({ config, store: other, redis: namespace.connect(), scheduler, log, clock }),
    async close() {
      await parts.wal.settle();
      await harness.workers?.close(1_000);
      await scheduler.close();
      await store.close();
      await namespace.cleanup();
      await dir.cleanup();
    },
  };
  return harness;
}

function mergeOverrides(base: ConfigOverrides, extra: ConfigOverrides): ConfigOverrides {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra ?? {})) {
    const current = out[key];
    out[key] =
      current && typeof current === 'object' && value && typeof value === 'object' && !Array.isArray(value)
        ? { ...current, ...value }
        : value;
  }
  return out as ConfigOverrides;
}

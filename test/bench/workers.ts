/**
 * `npm run bench -- workers`: flush and merge throughput with 1, 2 and 4 worker processes
 * against one Redis Cluster (three masters, three replicas) and one store, as the ratio
 * over one process. Each worker process runs on a test host of its own — a network
 * namespace joined by veth to a bridge the cluster listens on — where the machine allows
 * it; elsewhere the workers share loopback and the lines say so (`hosts`).
 *
 * The work is laid out first with its queue paused (sealed generations waiting for flush,
 * committed ones waiting for merge), the workers start and report ready, and the clock
 * runs from resuming the queue until every generation is flushed, or merged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { createNetHosts, type NetHosts, netHostsUnavailable } from '../support/net-hosts.ts';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.ts';
import { eventRows, eventsTable } from '../support/rows.ts';
import { childEnv } from '../support/worker-process.ts';
import { type BenchResult, progress } from './measure.ts';

const WORKER_COUNTS = [1, 2, 4] as const;
const FLUSH_SHARDS = 16;
const FLUSH_ROUNDS = 3;
const FLUSH_ROWS_PER_ROUND = 32_000;
const MERGE_TABLES = 8;
const MERGE_GENERATIONS = 3;
const MERGE_ROWS_PER_GENERATION = 8_000;
const POLL_MS = 50;
const READY_TIMEOUT_MS = 60_000;

interface Measured {
  seconds: number;
  generations: number;
  rows: number;
}

export async function* run(): AsyncIterable<BenchResult> {
  const unavailable = netHostsUnavailable();
  if (unavailable) progress(`workers share loopback, not hosts of their own: ${unavailable}`);
  const net = unavailable ? null : createNetHosts(Math.max(...WORKER_COUNTS));
  const hosts = net ? 'netns' : 'loopback';
  let cluster: TestCluster | null = null;
  try {
    cluster = await startTestCluster(net ? { host: net.bridgeIp } : {});
    const cases = [
      { name: `flush-${FLUSH_SHARDS}shards-${FLUSH_ROUNDS}gens`, measure: measureFlush },
      { name: `merge-${MERGE_TABLES}tables-${MERGE_GENERATIONS}gens`, measure: measureMerge },
    ];
    for (const { name, measure } of cases) {
      let one: Measured | null = null;
      for (const workers of WORKER_COUNTS) {
        progress(`${name}: ${workers} worker process(es)`);
        const measured = await measure(cluster, net, workers);
        one ??= measured;
        yield {
          bench: 'workers',
          case: name,
          system: 'sluice',
          workers,
          hosts,
          redis: 'cluster-3x2',
          ...measured,
          generationsPerSec: round(measured.generations / measured.seconds),
          rowsPerSec: Math.round(measured.rows / measured.seconds),
          baselineCase: `${name}-1worker`,
          ratioOverOne: round(one.seconds / measured.seconds),
        };
      }
    }
  } finally {
    await cluster?.stop();
    net?.remove();
  }
}

async function measureFlush(cluster: TestCluster, net: NetHosts | null, workers: number): Promise<Measured> {
  const h = await benchHarness(cluster);
  try {
    await h.createTable(eventsTable('flush', { shards: FLUSH_SHARDS, settings: { sealDelayMs: 60_000 } }));
    await h.scheduler.flush.pause();
    for (let round = 0; round < FLUSH_ROUNDS; round++) {
      const from = round * FLUSH_ROWS_PER_ROUND + 1;
      await h.sluice.writes.append('flush', await batchOf(h, 'flush', from, FLUSH_ROWS_PER_ROUND));
      for (let shard = 0; shard < FLUSH_SHARDS; shard++) await h.sluice.shards.seal('flush', shard);
    }
    const seconds = await timedRun(h, net, workers, 'flush', h.scheduler.flush);
    return { seconds, generations: FLUSH_SHARDS * FLUSH_ROUNDS, rows: FLUSH_ROUNDS * FLUSH_ROWS_PER_ROUND };
  } finally {
    await h.close();
  }
}

async function measureMerge(cluster: TestCluster, net: NetHosts | null, workers: number): Promise<Measured> {
  const h = await benchHarness(cluster);
  try {
    const tables = Array.from({ length: MERGE_TABLES }, (_, i) => `merge${i}`);
    for (const table of tables) {
      await h.createTable(
        eventsTable(table, { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      for (let g = 0; g < MERGE_GENERATIONS; g++) {
        await h.sluice.writes.append(
          table,
          await batchOf(h, table, g * MERGE_ROWS_PER_GENERATION + 1, MERGE_ROWS_PER_GENERATION),
        );
        await h.sluice.shards.seal(table, 0);
        await h.sluice.shards.flush(table, 0);
      }
    }
    await h.scheduler.merge.pause();
    for (const table of tables) await h.scheduler.requestMerge(table, { manual: true });
    const seconds = await timedRun(h, net, workers, 'merge', h.scheduler.merge);
    for (const table of tables) {
      const stats = await h.sluice.shards.stats(table, 0);
      if (stats.pendingGenerations !== 0)
        throw new Error(`${table} still has ${stats.pendingGenerations} pending`);
    }
    return {
      seconds,
      generations: MERGE_TABLES * MERGE_GENERATIONS,
      rows: MERGE_TABLES * MERGE_GENERATIONS * MERGE_ROWS_PER_GENERATION,
    };
  } finally {
    await h.close();
  }
}

function benchHarness(cluster: TestCluster): Promise<Harness> {
  return createHarness({ ...cluster.target, logLevel: 'warn', workers: { shutdownGraceSeconds: 5 } });
}

async function batchOf(h: Harness, table: string, from: number, count: number) {
  return jsonRowsToRecordBatch(
    (await h.sluice.tables.describe(table)).schema,
    eventRows(from, from + count - 1),
  );
}

/** Starts the workers, resumes the paused queue, and times until it holds no job. */
async function timedRun(
  h: Harness,
  net: NetHosts | null,
  workers: number,
  queueName: string,
  queue: Queue,
): Promise<number> {
  const children = await Promise.all(
    Array.from({ length: workers }, (_, i) => startWorker(h, net?.hosts[i]?.prefix ?? [], queueName)),
  );
  try {
    const start = performance.now();
    await queue.resume();
    for (;;) {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children');
      if (Object.values(counts).every((n) => n === 0)) break;
      await sleep(POLL_MS);
    }
    return Math.round(performance.now() - start) / 1000;
  } finally {
    await Promise.all(children.map(stopWorker));
  }
}

async function startWorker(h: Harness, prefix: string[], queues: string): Promise<ChildProcess> {
  const command = [process.execPath, '--import', 'tsx', 'jobs/worker.ts', `--queues=${queues}`];
  const [file, ...args] = [...prefix, ...command];
  const child = spawn(file!, args, {
    env: childEnv(h.config, { SLUICE_LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a worker did not report ready')), READY_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"workers ready"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`a worker exited with ${code} before it was ready`)));
  });
  try {
    await ready;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

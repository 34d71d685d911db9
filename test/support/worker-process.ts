/**
 * A Sluice worker as a real child process (`jobs/worker.ts`, see logged-process.ts), the
 * environment that points it at a test's Redis namespace and store, and what its log
 * says about the flushes it ran.
 */
import type { Config } from '../../shared/config.ts';
import { type LoggedProcess, type LogLine, spawnLogged } from './logged-process.ts';

export type { LogLine };
export type WorkerProcess = LoggedProcess;

/** Environment that points a child process at the same Redis namespace and store as `config`. */
export function childEnv(config: Config, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SLUICE_REDIS_URL: config.redisUrl,
    SLUICE_REDIS_CLUSTER_NODES: config.redisClusterNodes,
    SLUICE_REDIS_PREFIX: config.redisPrefix,
    SLUICE_STORE_URL: config.storeUrl,
    SLUICE_LOG_LEVEL: 'debug',
    SLUICE_LOG_PRETTY: 'false',
    SLUICE_FLUSH_MAX_RETRIES: String(config.flush.maxRetries),
    SLUICE_FLUSH_RETRY_BASE_MS: String(config.flush.retryBaseMs),
    SLUICE_FLUSH_RETRY_MAX_MS: String(config.flush.retryMaxMs),
    SLUICE_LOCK_DURATION_MS: String(config.workers.lockDurationMs),
    SLUICE_STALLED_INTERVAL_MS: String(config.workers.stalledIntervalMs),
    SLUICE_SHUTDOWN_GRACE_SECONDS: String(config.workers.shutdownGraceSeconds),
    // Several workers of one test share this host: each serves its metrics on a port of its own.
    SLUICE_METRICS_PORT: '0',
    ...extra,
  };
}

export async function spawnWorker(env: NodeJS.ProcessEnv, queues = 'seal,flush'): Promise<WorkerProcess> {
  const worker = spawnLogged('jobs/worker.ts', [`--queues=${queues}`], env);
  await worker.waitForLine((line) => line.msg === 'workers ready', 'the worker to be ready');
  return worker;
}

/** [start, end] of every flush job run in the log lines, per shard target. */
export function flushIntervals(
  lines: LogLine[],
): Map<string, Array<{ start: number; end: number; pid: number }>> {
  const open = new Map<string, LogLine>();
  const out = new Map<string, Array<{ start: number; end: number; pid: number }>>();
  for (const line of lines) {
    const id = `${line.pid}/${String(line.jobId)}`;
    if (line.msg === 'flush started') open.set(id, line);
    if (line.msg === 'flush ended') {
      const start = open.get(id);
      open.delete(id);
      if (!start) continue;
      const target = `${String(line.table)}/${String(line.shard)}`;
      const list = out.get(target) ?? [];
      list.push({ start: start.time, end: line.time, pid: line.pid });
      out.set(target, list);
    }
  }
  return out;
}

/**
 * A Sluice worker as a real child process (`jobs/worker.ts`), with its JSON log lines
 * parsed as they arrive, so tests can wait for what it says and kill it where they want.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Config } from '../../shared/config.ts';
import { waitFor } from './wait-for.ts';

export interface LogLine {
  time: number;
  pid: number;
  msg: string;
  level: number;
  [key: string]: unknown;
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly exited: Promise<number | null>;
  waitForLine(match: (line: LogLine) => boolean, message: string, timeoutMs?: number): Promise<LogLine>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Environment that points a child process at the same Redis namespace and store as `config`. */
export function childEnv(config: Config, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SLUICE_REDIS_URL: config.redisUrl,
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
    ...extra,
  };
}

export async function spawnWorker(env: NodeJS.ProcessEnv, queues = 'seal,flush'): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'jobs/worker.ts', `--queues=${queues}`], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let stderr = '';
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      stderr += `${text}\n`;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const worker: WorkerProcess = {
    child,
    lines,
    exited,
    async waitForLine(match, message, timeoutMs = 20_000) {
      return waitFor(
        () => {
          if (child.exitCode !== null)
            throw new Error(`worker exited (${child.exitCode}): ${stderr.slice(-2000)}`);
          return lines.find(match);
        },
        { message, timeoutMs },
      );
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
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

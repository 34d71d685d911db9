/**
 * Sluice as it is deployed, on this machine: a private redis-server, one API process and
 * the worker processes, each `npm start`'s entry with its own SLUICE_ROLE, all on one
 * store — a file store that every process opens through the same fault plan, or the S3
 * test server, which injects the faults itself. The chaos run kills, stops
 * and restarts them through this handle.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../infra/local/redis.ts';
import { QUEUE, queueOptions } from '../../queue/queues.ts';
import { type Config, loadConfig } from '../../shared/config.ts';
import type { FaultPlan } from '../../shared/store/fault-plan.ts';
import { type LoggedProcess, type LogLine, spawnLogged } from '../support/logged-process.ts';
import type { ProcessName } from './schedule.ts';

const READY_TIMEOUT_MS = 60_000;

export interface ClusterOptions {
  dir: string;
  tokensEnv: string;
  /** SLUICE_STORE_URL and its settings, and for a file store the fault plan every process follows. */
  store: { env: Record<string, string>; plan?: FaultPlan };
  processes: readonly ProcessName[];
  /** SLUICE_* settings of every process. */
  settings: Record<string, string>;
}

export class ChaosCluster {
  private readonly running = new Map<ProcessName, LoggedProcess>();
  private spawned = 0;
  /** Processes that ended without being killed, with how they ended. */
  readonly crashes: string[] = [];

  private constructor(
    private readonly redis: PrivateRedis,
    private readonly env: NodeJS.ProcessEnv,
    readonly apiUrl: string,
    /** Each process's output goes to a file here, for reading a failed run. */
    readonly logDir: string,
  ) {}

  static async start(options: ClusterOptions): Promise<ChaosCluster> {
    const planPath = join(options.dir, 'fault-plan.json');
    if (options.store.plan) await writeFile(planPath, JSON.stringify(options.store.plan));
    const redis = await startPrivateRedis();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...options.settings,
      SLUICE_REDIS_URL: redis.url,
      SLUICE_REDIS_PREFIX: 'chaos',
      ...options.store.env,
      ...(options.store.plan ? { SLUICE_STORE_FAULT_PLAN: planPath } : {}),
      SLUICE_TOKENS: options.tokensEnv,
      SLUICE_HOST: '127.0.0.1',
      // One fixed port, so clients find the API again after it was killed and restarted.
      SLUICE_PORT: String(port),
      SLUICE_METRICS_PORT: '0',
      SLUICE_LOG_LEVEL: 'info',
      SLUICE_LOG_PRETTY: 'false',
    };
    const logDir = join(options.dir, 'logs');
    await mkdir(logDir);
    const cluster = new ChaosCluster(redis, env, `http://127.0.0.1:${port}`, logDir);
    try {
      await Promise.all(options.processes.map((name) => cluster.spawn(name)));
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  /**
   * Starts a process of that name's role; the API or a worker must say it is ready. Never
   * while Redis is down (the run's faults come one at a time): `npm start`'s entry would
   * then start a private Redis of its own and work beside the others on the same store.
   */
  async spawn(name: ProcessName): Promise<void> {
    const role = name === 'api' ? 'api' : 'worker';
    // Workers log at debug: a fault aimed at the optimizing worker waits for its "optimize started".
    const level = role === 'worker' ? { SLUICE_LOG_LEVEL: 'debug' } : {};
    const child = spawnLogged('infra/local/start.ts', [], { ...this.env, SLUICE_ROLE: role, ...level });
    this.spawned += 1;
    const log = createWriteStream(join(this.logDir, `${String(this.spawned).padStart(3, '0')}-${name}.log`));
    child.child.stdout?.pipe(log, { end: false });
    child.child.stderr?.pipe(log, { end: false });
    void child.exited.then(() => log.end());
    this.running.set(name, child);
    void child.exited.then((code) => {
      if (this.running.get(name) !== child) return;
      const last = child.lines.filter((line) => line.level >= 50).at(-1);
      this.crashes.push(`${name} (pid ${child.child.pid}) exited with ${code}${last ? `: ${last.msg}` : ''}`);
    });
    await child.waitForLine((line) => line.msg === 'sluice ready', `${name} to be ready`, READY_TIMEOUT_MS);
  }

  async kill(name: ProcessName): Promise<void> {
    const child = this.running.get(name);
    this.running.delete(name);
    await child?.stop('SIGKILL');
  }

  /** The first of `names` to log a line `match` accepts from now on, within `timeoutMs`; null if none does. */
  async nextToLog(
    names: readonly ProcessName[],
    match: (line: LogLine) => boolean,
    timeoutMs: number,
  ): Promise<ProcessName | null> {
    const from = new Map(names.map((name) => [name, this.running.get(name)?.lines.length ?? 0]));
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(25)) {
      const found = names.find((name) => this.running.get(name)?.lines.slice(from.get(name)).some(match));
      if (found) return found;
    }
    return null;
  }

  /** SIGSTOP now, SIGCONT after `forMs`; a process killed meanwhile is left alone. */
  async pause(name: ProcessName, forMs: number): Promise<void> {
    const child = this.running.get(name);
    if (!child) return;
    child.child.kill('SIGSTOP');
    await sleep(forMs);
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGCONT');
  }

  /** kill -9 of redis-server, then an empty one on the same port. */
  restartRedis(): Promise<void> {
    return this.redis.restart();
  }

  /** Every process of `names` running again, for the checks after the faults. */
  async heal(names: readonly ProcessName[]): Promise<void> {
    for (const name of names) {
      const child = this.running.get(name);
      if (child && child.child.exitCode === null && child.child.signalCode === null) continue;
      await this.spawn(name);
    }
  }

  /** The configuration every process runs with. */
  config(): Config {
    return loadConfig(this.env);
  }

  /** Job Schedulers of the sampler queue in Redis now: 0 means no sampler tick will come. */
  async samplerSchedulers(): Promise<number> {
    const queue = new Queue(QUEUE.sampler, queueOptions(loadConfig(this.env), QUEUE.sampler));
    try {
      return await queue.getJobSchedulersCount();
    } finally {
      await queue.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.kill(name)));
    await this.redis.stop();
  }
}

/**
 * Local runs and tests need a Redis. `ensureRedis` uses the one at the configured URL or,
 * when nothing answers at the default URL (SLUICE_REDIS_URL unset) and redis-server is
 * installed, starts a private throwaway one. A URL someone set and nothing answers at is a
 * mistake to report, never one to paper over with a private Redis. `startPrivateRedis` is the lower-level piece for tests that kill and restart
 * their own Redis.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis, ReplyError } from 'ioredis';
import { SluiceError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';

const PROBE_TIMEOUT_MS = 500;
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface EnsuredRedis {
  url: string;
  /** True when this process started that Redis; only then does `stop()` end it. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface PrivateRedis {
  url: string;
  port: number;
  dir: string;
  /** Ends the server and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server as a crash would and starts a new, empty one on the same port. */
  restart(): Promise<void>;
}

export interface EnsureRedisOptions {
  /** Whether a private Redis may stand in when nothing answers; by default only when SLUICE_REDIS_URL is unset. */
  startPrivate?: boolean;
}

/** True unless SLUICE_REDIS_URL names a Redis (an empty value is unset, as in the configuration). */
export function privateRedisAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.SLUICE_REDIS_URL ?? '') === '';
}

export async function ensureRedis(
  url: string,
  log: Logger,
  { startPrivate = privateRedisAllowed() }: EnsureRedisOptions = {},
): Promise<EnsuredRedis> {
  const client = await connectProbe(url);
  if (client) {
    try {
      await warnUnlessNoEviction(client, url, log);
    } finally {
      client.disconnect();
    }
    log.info({ redisUrl: redactRedisUrl(url) }, 'using Redis');
    return { url, owned: false, stop: async () => {} };
  }
  if (!startPrivate) {
    throw new SluiceError(
      'REDIS_UNAVAILABLE',
      `no Redis answers at SLUICE_REDIS_URL=${redactRedisUrl(url)}: start Redis there, correct the URL, ` +
        'or unset SLUICE_REDIS_URL to have a private redis-server started',
      { redisUrl: redactRedisUrl(url) },
    );
  }
  const binary = findOnPath('redis-server');
  if (!binary) {
    throw new SluiceError(
      'REDIS_UNAVAILABLE',
      `no Redis answers at ${redactRedisUrl(url)} and redis-server is not on the PATH: ` +
        'install it (apt-get install redis-server) or set SLUICE_REDIS_URL to a running Redis',
      { redisUrl: redactRedisUrl(url) },
    );
  }
  const redis = await PrivateRedisServer.start(binary, await freePort());
  log.info(
    { redisUrl: redis.url, dir: redis.dir, unanswered: redactRedisUrl(url) },
    'nothing answered at the Redis URL; started a private redis-server',
  );
  return { url: redis.url, owned: true, stop: () => redis.stop() };
}

export async function startPrivateRedis(options: { port?: number } = {}): Promise<PrivateRedis> {
  const binary = findOnPath('redis-server');
  if (!binary) {
    throw new SluiceError(
      'REDIS_UNAVAILABLE',
      'redis-server is not on the PATH: apt-get install redis-server',
    );
  }
  return PrivateRedisServer.start(binary, options.port ?? (await freePort()));
}

/** The URL without its password, for logs and errors. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** True when something at `url` answers PING within a short timeout. */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = await connectProbe(url);
  client?.disconnect();
  return client !== null;
}

/** The process id of the Redis answering at `url`, or null when nothing answers. */
async function answeringPid(url: string): Promise<number | null> {
  const client = await connectProbe(url);
  if (!client) return null;
  try {
    const match = /^process_id:(\d+)/m.exec(await client.info('server'));
    return match ? Number(match[1]) : null;
  } finally {
    client.disconnect();
  }
}

/** A client that got PONG from `url`, or null when nothing answered there. */
async function connectProbe(url: string): Promise<Redis | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    commandTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // A refused connection is an answer here, not an error for ioredis to print. A server
  // that answers with an error (NOAUTH, WRONGPASS) is there but unusable: a private Redis
  // beside it would only hide the mistake. ioredis reports that error as an event and then
  // rejects with "Connection is closed".
  let refusal: Error | undefined;
  client.on('error', (err: Error) => {
    if (err instanceof ReplyError) refusal = err;
  });
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (err) {
    client.disconnect();
    if (err instanceof ReplyError) refusal = err as Error;
    if (refusal) {
      throw new SluiceError(
        'REDIS_UNAVAILABLE',
        `Redis at ${redactRedisUrl(url)} refused: ${refusal.message}`,
        { redisUrl: redactRedisUrl(url) },
        { cause: refusal },
      );
    }
    return null;
  }
}

async function warnUnlessNoEviction(client: Redis, url: string, log: Logger): Promise<void> {
  const policy = await readEvictionPolicy(client);
  if (policy !== null && policy !== 'noeviction') {
    log.warn(
      { redisUrl: redactRedisUrl(url), maxmemoryPolicy: policy },
      'Redis maxmemory-policy is not noeviction: under memory pressure it may evict BullMQ keys',
    );
  }
}

async function readEvictionPolicy(client: Redis): Promise<string | null> {
  try {
    const reply = (await client.config('GET', 'maxmemory-policy')) as string[];
    return reply[1] ?? null;
  } catch {
    // Managed Redis services often refuse CONFIG; not knowing is no reason to refuse the server.
    return null;
  }
}

function findOnPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}

class PrivateRedisServer implements PrivateRedis {
  readonly url: string;
  private child: ChildProcess;

  private constructor(
    private readonly binary: string,
    readonly port: number,
    readonly dir: string,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
    this.child = this.spawnServer();
  }

  static async start(binary: string, port: number): Promise<PrivateRedisServer> {
    const server = new PrivateRedisServer(binary, port, mkdtempSync(join(tmpdir(), 'sluice-redis-')));
    track(server);
    try {
      await server.waitUntilAnswering();
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  async stop(): Promise<void> {
    await endProcess(this.child, 'SIGTERM');
    untrack(this);
    rmSync(this.dir, { recursive: true, force: true });
  }

  async restart(): Promise<void> {
    await endProcess(this.child, 'SIGKILL');
    this.child = this.spawnServer();
    await this.waitUntilAnswering();
  }

  /** The last resort on process exit: nothing asynchronous runs any more. */
  killNow(): void {
    this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawnServer(): ChildProcess {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir];
    // Nothing on disk, and never evict: BullMQ loses jobs when Redis drops keys.
    args.push('--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction');
    args.push('--logfile', this.logFile());
    const child = spawn(this.binary, args, { stdio: 'ignore' });
    child.on('error', () => {});
    return child;
  }

  private async waitUntilAnswering(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (hasExited(this.child)) throw this.startFailure('redis-server exited');
      const pid = await answeringPid(this.url);
      if (pid === this.child.pid) return;
      if (pid !== null) throw this.startFailure('another Redis already answers');
      await sleep(25);
    }
    throw this.startFailure(`redis-server did not answer within ${START_TIMEOUT_MS} ms`);
  }

  private startFailure(what: string): SluiceError {
    const logged = this.lastLogLine();
    return new SluiceError(
      'REDIS_UNAVAILABLE',
      `${what} on port ${this.port}${logged ? `: ${logged}` : ''}`,
      {
        port: this.port,
        logFile: this.logFile(),
      },
    );
  }

  private lastLogLine(): string {
    try {
      return readFileSync(this.logFile(), 'utf8').trim().split('\n').at(-1) ?? '';
    } catch {
      return '';
    }
  }

  private logFile(): string {
    return join(this.dir, 'redis.log');
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function endProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (hasExited(child) || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Private servers still running, ended when this process ends however it ends. */
const live = new Set<PrivateRedisServer>();

function track(server: PrivateRedisServer): void {
  if (live.size === 0) listenForExit('on');
  live.add(server);
}

function untrack(server: PrivateRedisServer): void {
  live.delete(server);
  if (live.size === 0) listenForExit('off');
}

function listenForExit(how: 'on' | 'off'): void {
  process[how]('exit', killAll);
  for (const signal of EXIT_SIGNALS) process[how](signal, onExitSignal);
}

function killAll(): void {
  for (const server of live) server.killNow();
  live.clear();
  listenForExit('off');
}

function onExitSignal(signal: NodeJS.Signals): void {
  // Another listener owns shutdown and stops the server in order (Redis must outlive the
  // workers that drain into it); alone, this one must not swallow the signal.
  if (process.listenerCount(signal) > 1) return;
  killAll();
  process.kill(process.pid, signal);
}

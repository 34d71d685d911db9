/**
 * Sluice's HTTP API as a real child process — `npm start`'s entry (`infra/local/start.ts`)
 * on port 0 — pointed at a test's Redis namespace and store directory. Its JSON log lines
 * are parsed as they arrive; the URL comes from its "sluice ready" line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { waitFor } from './wait-for.ts';
import type { LogLine } from './worker-process.ts';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  /** Ends the process (SIGTERM: a clean shutdown) and waits for it. */
  stop(): Promise<number | null>;
}

export interface ServerOptions {
  storeDir: string;
  redisUrl: string;
  redisPrefix: string;
  /** `all` runs the workers in the same process; `api` only answers requests. */
  role: 'all' | 'api';
  /** More SLUICE_* variables. */
  env?: Record<string, string>;
}

export async function spawnServer(options: ServerOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: {
      ...process.env,
      SLUICE_HOST: '127.0.0.1',
      SLUICE_PORT: '0',
      SLUICE_ROLE: options.role,
      SLUICE_STORE_URL: `file://${options.storeDir}`,
      SLUICE_REDIS_URL: options.redisUrl,
      SLUICE_REDIS_PREFIX: options.redisPrefix,
      SLUICE_LOG_LEVEL: 'info',
      SLUICE_LOG_PRETTY: 'false',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let other = '';
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      other += `${text}\n`;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    other += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = await waitFor(
    () => {
      if (child.exitCode !== null)
        throw new Error(`server exited (${child.exitCode}): ${other.slice(-2000)}`);
      return lines.find((line) => line.msg === 'sluice ready' && typeof line.url === 'string');
    },
    { message: 'the server to be ready', timeoutMs: 30_000 },
  );
  return {
    url: ready.url as string,
    child,
    lines,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

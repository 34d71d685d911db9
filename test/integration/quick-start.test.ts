/**
 * The README's first command: `npm start` (`node --import tsx infra/local/start.ts`) comes
 * up, says it is ready, and shuts down cleanly on SIGTERM. The test runs the script's
 * command line itself: npm ends on SIGTERM without passing it on, so a signal to npm would
 * orphan the process under test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, redisAnswers } from '../../infra/local/redis.ts';
import { createRedisNamespace, testRedisUrl } from '../support/redis.ts';
import { createTempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

interface Started {
  child: ChildProcess;
  /** Everything the process printed so far, stdout and stderr. */
  output(): string;
  /** The parsed JSON log lines from stdout. */
  logLines(): Array<Record<string, unknown>>;
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(env: Record<string, string>): Promise<Started> {
  const store = await createTempDir('quick-start');
  const namespace = createRedisNamespace();
  cleanups.push(store.cleanup, namespace.cleanup);
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      SLUICE_STORE_URL: `file://${store.path}`,
      SLUICE_REDIS_PREFIX: namespace.prefix,
      SLUICE_LOG_PRETTY: 'false',
      // The API listens too: on a free port, so the test never depends on 8080 being free.
      SLUICE_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a failed test can end it with anything it started.
    detached: true,
  });
  cleanups.push(async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // ESRCH: the whole group has already exited.
    }
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    child,
    output: () => stdout + stderr,
    logLines: () =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

async function readyLine(started: Started): Promise<Record<string, unknown>> {
  return waitFor(() => started.logLines().find((line) => line.msg === 'sluice ready'), {
    message: 'the "sluice ready" log line',
    timeoutMs: 30_000,
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output ---\n${started.output()}`);
  });
}

async function terminate(started: Started): Promise<number | null> {
  const exited = once(started.child, 'exit');
  started.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

describe('quick start: npm start', () => {
  it('logs that it is ready with the store and Redis URLs, and exits 0 on SIGTERM', async () => {
    const started = await start({ SLUICE_REDIS_URL: testRedisUrl, SLUICE_LOG_LEVLE: 'debug' });

    const ready = await readyLine(started);
    expect(
      started.logLines().find((line) => line.level === 40 && Array.isArray(line.variables)),
    ).toMatchObject({
      variables: ['SLUICE_LOG_LEVLE'],
    });
    expect(ready).toMatchObject({ redisUrl: testRedisUrl, level: 30 });
    expect(String(ready.storeUrl)).toContain('file://');

    expect(await terminate(started)).toBe(0);
    expect(started.logLines().at(-1)).toMatchObject({ msg: 'stopped' });
  });

  it('stops with one line naming SLUICE_REDIS_URL when nothing answers there, starting no private Redis', async () => {
    const unused = `redis://127.0.0.1:${await freePort()}`;
    const started = await start({ SLUICE_REDIS_URL: unused });

    const [code] = (await once(started.child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(started.output()).toContain(`sluice: no Redis answers at SLUICE_REDIS_URL=${unused}`);
    expect(started.logLines().some((line) => line.msg === 'sluice ready')).toBe(false);
    expect(await redisAnswers(unused)).toBe(false);
    expect(started.output()).not.toContain('started a private redis-server');
  });
});

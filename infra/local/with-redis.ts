/**
 * `node --import tsx infra/local/with-redis.ts <command> [args…]` runs the command with
 * SLUICE_REDIS_URL set to a Redis that answers: the configured one, or a private one
 * stopped afterwards. `npm test` runs Vitest under it.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { loadConfig } from '../../shared/config.ts';
import { SluiceError } from '../../shared/errors.ts';
import { createCliLogger, runCli } from './cli.ts';
import { ensureRedis } from './redis.ts';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

runCli('with-redis', async () => {
  const [command, ...args] = process.argv.slice(2);
  if (command === undefined) {
    throw new SluiceError(
      'INVALID_REQUEST',
      'usage: node --import tsx infra/local/with-redis.ts <command> [args…]',
    );
  }
  const config = loadConfig();
  const redis = await ensureRedis(config.redisUrl, createCliLogger(config));
  try {
    return await runChild(command, args, { ...process.env, SLUICE_REDIS_URL: redis.url });
  } finally {
    await redis.stop();
  }
});

/** The child's exit code; killed by a signal, 128 + its number as a shell reports it. */
function runChild(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const done = () => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    };
    child.once('error', (err) => {
      done();
      reject(new SluiceError('INVALID_REQUEST', `cannot run ${command}: ${err.message}`, {}, { cause: err }));
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

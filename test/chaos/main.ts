/**
 * `npm run chaos -- --seconds 600 --seed N`: one seeded chaos run (run-chaos.ts). Progress
 * goes to stderr, one JSON summary line to stdout; the exit code is 1 when any check failed.
 */
import { parseArgs } from 'node:util';
import { runChaos } from './run-chaos.ts';

const USAGE =
  'usage: npm run chaos -- [--seed N] [--seconds S] [--clients C] [--settle-seconds S] [--store fs|s3]\n' +
  '  --seed            seed of the fault schedule (default: a random one, printed)\n' +
  '  --seconds         length of the fault window (default 60)\n' +
  '  --clients         concurrent HTTP clients (default 4)\n' +
  '  --settle-seconds  how long the pipeline may take to flush and merge once faults stop (default 60)\n' +
  '  --store           fs: a file store, faults injected in each process; s3: the S3 test server,\n' +
  '                    which injects them itself, so Lance meets them too (default fs)';

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`--${name} takes a positive integer, not "${raw}"\n${USAGE}`);
  return value;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      seconds: { type: 'string' },
      clients: { type: 'string' },
      'settle-seconds': { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.error(USAGE);
    return 0;
  }
  const store = values.store ?? 'fs';
  if (store !== 'fs' && store !== 's3') throw new Error(`--store takes fs or s3, not "${store}"\n${USAGE}`);
  const { summary, problems } = await runChaos({
    store,
    seed: positiveInteger('seed', values.seed, 1 + Math.floor(Math.random() * 2 ** 31)),
    seconds: positiveInteger('seconds', values.seconds, 60),
    clients: positiveInteger('clients', values.clients, 4),
    settleSeconds: positiveInteger('settle-seconds', values['settle-seconds'], 60),
    progress: (line) => console.error(`[chaos] ${line}`),
  });
  for (const problem of problems.slice(0, 50)) console.error(`[chaos] violation: ${problem}`);
  if (problems.length > 50) console.error(`[chaos] … and ${problems.length - 50} more`);
  console.log(JSON.stringify(summary));
  return summary.violations === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);

/**
 * The runbook's commands (docs/operations.md, parts 1 to 3) run as written against `npm
 * start`'s entry: its setup block (less `npm start`, which runs here), then every `$ `
 * command of its console blocks in order under `bash -e`, the broken store made with
 * `chattr +i` as the runbook does. What a test on a shared machine must change is changed
 * and nothing else: the store directory is a temporary one, the port a free one and the
 * Redis prefix a fresh one. Each command exits 0, none is answered INTERNAL, and the
 * answers that prove nothing was lost are the ones the runbook shows.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const RUNBOOK_STORE = '/var/lib/sluice-runbook';
const runbook = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
/** Parts 1 to 3 run on one `npm start`; part 4 starts processes of its own. */
const singleProcess = runbook.slice(0, runbook.indexOf('\n## 4.'));
const setup = /```sh\n([\s\S]*?)```/.exec(singleProcess)![1]!;

interface Step {
  command: string;
  shown: string;
}

/** Every `$ ` line of a console block, with the output the runbook shows under it. */
function steps(text: string): Step[] {
  const found: Step[] = [];
  for (const [, block] of text.matchAll(/```console\n([\s\S]*?)```/g)) {
    for (const part of block!.split(/^\$ /m).slice(1)) {
      const [command, ...shown] = part.split('\n');
      found.push({ command: command!, shown: shown.join('\n').trim() });
    }
  }
  return found;
}

const run = (script: string, env: NodeJS.ProcessEnv, cwd: string) =>
  spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, encoding: 'utf8', timeout: 60_000 });

describe('runbook commands', () => {
  let store: TempDir;
  let work: TempDir;
  let redis: RedisNamespace;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  const local = (text: string) => text.replaceAll(RUNBOOK_STORE, store.path);

  beforeAll(async () => {
    store = await createTempDir('runbook-store');
    work = await createTempDir('runbook-work');
    redis = createRedisNamespace();
    const prepared = run(`${local(setup).replace(/^npm start$/m, '')}\nenv -0`, process.env, work.path);
    expect(prepared.status, prepared.stderr).toBe(0);
    const exported = Object.fromEntries(
      prepared.stdout
        .split('\0')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    server = await spawnServer({
      storeDir: store.path,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      role: 'all',
      env: { SLUICE_TOKENS: exported.SLUICE_TOKENS! },
    });
    env = { ...exported, URL: server.url, SLUICE_REDIS_PREFIX: redis.prefix };
  }, 60_000);

  afterAll(async () => {
    run(`chattr -R -i ${store.path} 2>/dev/null || true`, process.env, '/');
    await server?.stop();
    await redis?.cleanup();
    await store?.cleanup();
    await work?.cleanup();
  });

  it('has the setup and the steps of parts 1 to 3', () => {
    expect(setup).toContain('npm start');
    expect(steps(singleProcess).length).toBeGreaterThanOrEqual(25);
  });

  it('runs every command of parts 1 to 3 in order, each exiting 0 and none answered INTERNAL', () => {
    const outputs = new Map<string, string>();
    for (const step of steps(singleProcess)) {
      const result = run(local(step.command), env, work.path);
      expect({ command: step.command, status: result.status, stderr: result.stderr }).toMatchObject({
        command: step.command,
        status: 0,
      });
      expect(result.stdout).not.toContain('"INTERNAL"');
      outputs.set(step.command, result.stdout.trim());
    }
    // The answers that show the shard recovered and every row is there, as the runbook shows them.
    const proofs = [...outputs.keys()].filter((command) =>
      /rows\?limit=1000|rows\?key=|\/v1\/dead-letters \| jq -c|drain -d/.test(command),
    );
    expect(proofs.length).toBeGreaterThanOrEqual(6);
    const shown = new Map(steps(singleProcess).map((s) => [s.command, s.shown]));
    for (const command of proofs)
      expect({ command, output: outputs.get(command) }).toEqual({ command, output: shown.get(command) });
  }, 180_000);
});

/**
 * The runbook's commands (docs/operations.md) run as written against `npm start`'s entry:
 * its setup block (less `npm start`, which runs here), then every `$ ` command of its
 * console blocks in order in one `bash -e` session (as in a terminal, a variable one sets
 * is there for the next), the broken store made with `chattr +i` as the runbook does; for
 * part 4 the processes its block starts (an API and four workers) replace the one `npm
 * start`. What a test on a shared machine must change is changed and nothing else: the
 * store directory is a temporary one, the ports free ones and the Redis prefix a fresh
 * one. Each command exits 0, none is answered INTERNAL, and the answers that prove nothing
 * was lost are the ones the runbook shows.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoggedProcess, spawnLogged } from '../support/logged-process.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const RUNBOOK_STORE = '/var/lib/sluice-runbook';
const runbook = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
/** Parts 1 to 3 run on one `npm start`; part 4 starts processes of its own. */
const singleProcess = runbook.slice(0, runbook.indexOf('\n## 4.'));
const scaledOut = runbook.slice(runbook.indexOf('\n## 4.'), runbook.indexOf('\n## Alerts'));
const setup = /```sh\n([\s\S]*?)```/.exec(singleProcess)![1]!;
/** Part 4's processes, one command a line: `VAR=value … command`. */
const processes = /```sh\n([\s\S]*?)```/.exec(scaledOut)![1]!.trim().split('\n');

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
  spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, encoding: 'utf8', timeout: 150_000 });

const MARK = '@@runbook-step@@';

/** The commands in one session, each output told apart by a marker line; stops at the first that fails. */
function session(commands: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const script = commands.map((command) => `echo ${MARK}\n${command}`).join('\n');
  const result = run(script, env, cwd);
  const outputs = result.stdout
    .split(`${MARK}\n`)
    .slice(1)
    .map((output) => output.trim());
  return { status: result.status, stderr: result.stderr, outputs, failed: commands[outputs.length - 1] };
}

function words(line: string) {
  const all = line.split(' ');
  const assigned = (w: string) => /^[A-Z_]+=/.test(w);
  return {
    env: Object.fromEntries(
      all.filter(assigned).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    ),
    command: all.filter((w) => !assigned(w)).join(' '),
  };
}

describe('runbook commands', () => {
  let store: TempDir;
  let work: TempDir;
  let redis: RedisNamespace;
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  let tokens: string;
  const workers: LoggedProcess[] = [];
  const local = (text: string) => text.replaceAll(RUNBOOK_STORE, store.path);
  const serve = async (role: 'all' | 'api') =>
    spawnServer({
      storeDir: store.path,
      redisUrl: redis.url,
      redisPrefix: redis.prefix,
      role,
      env: { SLUICE_TOKENS: tokens },
    });

  beforeAll(async () => {
    store = await createTempDir('runbook-store');
    work = await createTempDir('runbook-work');
    redis = createRedisNamespace();
    const prepared = run(`${local(setup).replace(/^npm start$/m, '')}\nenv -0`, process.env, work.path);
    expect(prepared.status, prepared.stderr).toBe(0);
    const exported: NodeJS.ProcessEnv = Object.fromEntries(
      prepared.stdout
        .split('\0')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    tokens = exported.SLUICE_TOKENS!;
    server = await serve('all');
    env = { ...exported, URL: server.url, SLUICE_REDIS_PREFIX: redis.prefix };
  }, 60_000);

  afterAll(async () => {
    run(`chattr -R -i ${store.path} 2>/dev/null || true`, process.env, '/');
    await server?.stop();
    for (const worker of workers) await worker.stop();
    await redis?.cleanup();
    await store?.cleanup();
    await work?.cleanup();
  });

  it('has the setup, the steps of every part and the processes of part 4', () => {
    expect(setup).toContain('npm start');
    expect(steps(singleProcess).length).toBeGreaterThanOrEqual(25);
    expect(steps(scaledOut).length).toBeGreaterThanOrEqual(4);
    expect(processes.length).toBe(5);
  });

  it('runs every command of parts 1 to 3 in order, each exiting 0 and none answered INTERNAL', () => {
    const all = steps(singleProcess);
    const ran = session(
      all.map((s) => local(s.command)),
      env,
      work.path,
    );
    expect(ran.status, `${ran.failed}\n${ran.stderr}`).toBe(0);
    expect(ran.outputs.length).toBe(all.length);
    for (const output of ran.outputs) expect(output).not.toContain('"INTERNAL"');
    // The answers that show the shard recovered and every row is there, as the runbook shows them.
    const proofs = all.flatMap((step, i) =>
      /rows\?limit=1000|rows\?key=|\/v1\/dead-letters \| jq -c|drain -d/.test(step.command)
        ? [{ command: step.command, output: ran.outputs[i], shown: step.shown }]
        : [],
    );
    expect(proofs.length).toBeGreaterThanOrEqual(6);
    for (const { command, output, shown } of proofs)
      expect({ command, output }).toEqual({ command, output: shown });
  }, 180_000);

  it("runs part 4's processes and then its commands, every row read back through the scaled-out API", async () => {
    expect(await server.stop()).toBe(0);
    const ports = new Map<string, string>();
    for (const line of processes) {
      const { env: assigned, command } = words(line);
      if (command === 'npm start') {
        expect(assigned.SLUICE_ROLE).toBe('api');
        server = await serve('api');
        continue;
      }
      const queues = /^node --import tsx jobs\/worker\.ts --queues=([a-z,]+)$/.exec(command)?.[1];
      expect(queues, line).toBeDefined();
      const worker = spawnLogged('jobs/worker.ts', [`--queues=${queues}`], {
        ...process.env,
        SLUICE_STORE_URL: `file://${store.path}`,
        SLUICE_REDIS_URL: redis.url,
        SLUICE_REDIS_PREFIX: redis.prefix,
        SLUICE_LOG_PRETTY: 'false',
        SLUICE_METRICS_PORT: '0',
      });
      workers.push(worker);
      const ready = await worker.waitForLine((l) => l.msg === 'workers ready', 'the worker to be ready');
      ports.set(assigned.SLUICE_METRICS_PORT!, new URL(String(ready.metricsUrl)).port);
    }
    expect(ports.size).toBe(4);
    const onThisHost = (text: string) =>
      [...ports].reduce(
        (out, [shown, actual]) => out.replace(new RegExp(`\\b${shown}\\b`, 'g'), actual),
        local(text),
      );
    const all = steps(scaledOut);
    const ran = session(
      all.map((s) => onThisHost(s.command)),
      { ...env, URL: server.url },
      work.path,
    );
    expect(ran.status, `${ran.failed}\n${ran.stderr}`).toBe(0);
    for (const output of ran.outputs) expect(output).not.toContain('"INTERNAL"');
    expect(ran.outputs[0]).toBe(all[0]!.shown);
    expect(ran.outputs.at(-1)).toBe('{"rows":1300,"ids":true}');
    expect(all.at(-1)!.shown).toBe('{"rows":1300,"ids":true}');
  }, 180_000);
});

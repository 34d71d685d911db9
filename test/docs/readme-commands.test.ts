/**
 * The README's HTTP API examples run as written, in order, against `npm start`'s entry (a
 * real server process with workers): every block exits 0 under `bash -e`, none is
 * answered INTERNAL, and the examples whose answers the README states give them. Blocks
 * run in a fresh directory, so one that reads a file another has not written fails.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedProcess, serveProcess } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const api = readme.slice(readme.indexOf('\n## HTTP API'), readme.indexOf('\n## Configuration'));
/** Every `sh` block of the section but the first, which sets the token up and runs `npm start` (done here). */
const blocks = [...api.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).slice(1);

describe('README HTTP API examples', () => {
  let served: ServedProcess;
  let dir: TempDir;

  beforeAll(async () => {
    served = await serveProcess('readme-commands', { role: 'all' });
    dir = await createTempDir('readme-commands');
  });

  afterAll(async () => {
    await dir?.cleanup();
    expect(await served?.stop()).toBe(0);
  });

  it('has the examples of every route', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(18);
    expect(api.split('\n').find((line) => line.startsWith('export SLUICE_TOKEN='))).toBeDefined();
  });

  it('runs every example in order, each exiting 0 and none answered INTERNAL', () => {
    const env = {
      ...process.env,
      SLUICE_TOKEN: served.tokens.all,
      AUTH: `Authorization: Bearer ${served.tokens.all}`,
      URL: served.server.url,
    };
    const outputs: string[] = [];
    for (const block of blocks) {
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', block], {
        cwd: dir.path,
        env,
        encoding: 'utf8',
      });
      expect({ block, status: run.status, stderr: run.stderr }).toMatchObject({ block, status: 0 });
      expect(run.stdout).not.toContain('"INTERNAL"');
      outputs.push(run.stdout);
    }
    const all = outputs.join('\n');
    expect(all).toContain('{"row":{"id":1,"name":"a2","at":null,"emb":null}}');
    expect(all).toMatch(/"state":"(waiting|active|completed)"/);
    expect(all).toContain('"name":"scratch","droppedAt"');
    expect(all).toContain('{"rows":[],"missing":[1,2]}');
    expect(all).toMatch(/\{"table":"events","rows":\d+,"baseRows":\d+,"pendingKeys":\d+\}/);
  });
});

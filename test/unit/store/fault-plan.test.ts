import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.ts';
import { type FaultPlan, followFaultPlan } from '../../../shared/store/fault-plan.ts';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import { FsStore } from '../../../shared/store/fs-store.ts';
import { openStore } from '../../../shared/store/open-store.ts';
import { tableConfigKey, walKey, walPrefix } from '../../../shared/table/paths.ts';
import { everyTableGlob, prefixGlob } from '../../support/key-globs.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';
import { waitFor } from '../../support/wait-for.ts';

const WAL_KEY = walKey('t', 0, 1);
const ONE_BYTE = new Uint8Array([1]);

describe('store fault plan (SLUICE_STORE_FAULT_PLAN)', () => {
  let dir: TempDir;

  beforeEach(async () => {
    dir = await createTempDir('fault-plan');
  });

  afterEach(async () => {
    await dir.cleanup();
  });

  async function planFile(plan: unknown): Promise<string> {
    const path = join(dir.path, 'plan.json');
    await writeFile(path, JSON.stringify(plan));
    return path;
  }

  it('is off by default: the store is the plain file store', async () => {
    const store = openStore(loadConfig({}, { storeUrl: `file://${dir.path}/store` }));
    expect(store).toBeInstanceOf(FsStore);
    await store.close();
  });

  it('wraps the file store when set, and the episode under way strikes the keys it names', async () => {
    const plan = await planFile({
      startedAt: Date.now() - 1_000,
      episodes: [
        {
          atMs: 0,
          forMs: 600_000,
          op: 'putIfAbsent',
          key: `${prefixGlob(walPrefix, '*', '*')}*`,
          fault: 'fail',
        },
      ],
    });
    const store = openStore(
      loadConfig({ SLUICE_STORE_FAULT_PLAN: plan }, { storeUrl: `file://${dir.path}/store` }),
    );
    expect(store).toBeInstanceOf(FaultyStore);
    await sleep(5);
    await expect(store.putIfAbsent(WAL_KEY, ONE_BYTE)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      details: { injected: 'fail' },
    });
    await expect(store.putIfAbsent(tableConfigKey('t'), ONE_BYTE)).resolves.toBeDefined();
    await store.close();
  });

  it('ends an episode when its time is up, and skips the ones already over', async () => {
    const store = new FaultyStore(new FsStore(dir.path));
    const now = Date.now();
    const plan: FaultPlan = {
      startedAt: now - 10_000,
      episodes: [
        { atMs: 0, forMs: 5_000, fault: 'fail' },
        { atMs: 10_000, forMs: 50, op: 'put', fault: 'lostAck' },
      ],
    };
    followFaultPlan(store, plan, now);
    await sleep(5);
    await expect(store.put('a', ONE_BYTE)).rejects.toMatchObject({ details: { injected: 'lostAck' } });
    expect(await store.get('a')).not.toBeNull();
    await waitFor(() => store.put('b', ONE_BYTE).then(() => true), { message: 'the episode to end' });
  });

  it('is refused for an S3 store, naming the variable to unset', async () => {
    const plan = await planFile({ startedAt: 0, episodes: [] });
    const config = loadConfig({ SLUICE_STORE_FAULT_PLAN: plan }, { storeUrl: 's3://bucket/env' });
    expect(() => openStore(config)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringContaining('unset it') }),
    );
  });

  it('refuses an episode that would inject nothing, before any timer could throw', async () => {
    const plan = await planFile({ startedAt: 0, episodes: [{ atMs: 0, forMs: 10, key: everyTableGlob() }] });
    const config = loadConfig({ SLUICE_STORE_FAULT_PLAN: plan }, { storeUrl: `file://${dir.path}/store` });
    expect(() => openStore(config)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('a fault or a latency'),
      }),
    );
  });

  it('refuses a file that is not a fault plan, saying what is wrong', async () => {
    const plan = await planFile({ startedAt: 0, episodes: [{ atMs: 0, forMs: 10, fault: 'explode' }] });
    const config = loadConfig({ SLUICE_STORE_FAULT_PLAN: plan }, { storeUrl: `file://${dir.path}/store` });
    expect(() => openStore(config)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('episodes.0.fault'),
      }),
    );
  });
});

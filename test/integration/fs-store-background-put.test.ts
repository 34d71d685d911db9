import { fstatSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FsStore } from '../../shared/store/fs-store.ts';
import { generationKey } from '../../shared/table/paths.ts';
import { createHarness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const MIB = 1 << 20;

/** A body whose bytes differ from step to step, so a step written twice or out of place shows. */
function bodyOf(bytes: number): Uint8Array {
  const body = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) body[i] = (i * 31 + (i >> 20)) & 0xff;
  return body;
}

describe('file store: a background put is made durable step by step', () => {
  let dir: TempDir;
  let store: FsStore;
  /** The temp file's size at each step's sync. */
  let stepSizes: number[];

  beforeEach(async () => {
    dir = await createTempDir('fs-background');
    stepSizes = [];
    store = dir.fsStore({
      syncData: async (fd) => {
        stepSizes.push(fstatSync(fd).size);
      },
    });
  });

  afterEach(async () => {
    await dir.cleanup();
  });

  it('syncs a large background put after each MiB it writes, and the object reads back whole', async () => {
    const body = bodyOf(3.5 * MIB);
    const key = generationKey('t', 0, 1);
    await store.put(key, body, { background: true });
    expect(stepSizes).toEqual([MIB, 2 * MIB, 3 * MIB, 3.5 * MIB]);
    expect(Buffer.from((await store.get(key))!.body).equals(Buffer.from(body))).toBe(true);
  });

  it('takes no steps for a put that is not background, nor for a background put written in one call', async () => {
    await store.put(generationKey('t', 0, 1), bodyOf(3.5 * MIB));
    await store.put(generationKey('t', 0, 2), bodyOf(MIB), { background: true });
    expect(stepSizes).toEqual([]);
  });

  it('a background put whose caller gave up between steps never lands', async () => {
    const controller = new AbortController();
    store = dir.fsStore({
      syncData: async () => controller.abort(),
    });
    const key = generationKey('t', 0, 1);
    await expect(
      store.put(key, bodyOf(3 * MIB), { background: true, signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await store.get(key)).toBeNull();
  });
});

describe('flush: no ack waits on an L0 file', () => {
  it('puts the L0 file as a background write', async () => {
    const h = await createHarness();
    try {
      await h.createTable(eventsTable('bg'));
      await writeRows(h.sluice, 'bg', eventRows(1, 10));
      await h.sluice.shards.seal('bg', 0);
      const put = vi.spyOn(h.store, 'put');
      expect(await h.sluice.shards.flush('bg', 0)).toEqual([1]);
      const l0Puts = put.mock.calls.filter(([key]) => key === generationKey('bg', 0, 1));
      expect(l0Puts.map(([, , options]) => options?.background)).toEqual([true]);
    } finally {
      await h.close();
    }
  });
});

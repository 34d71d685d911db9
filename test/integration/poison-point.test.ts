import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectTable } from '../../shared/lsm/gc.ts';
import { poison } from '../../shared/lsm/poison.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const REASON = { code: 'DATA_CORRUPT' as const, cause: 'test poison' };

describe('poison point (I7: nothing mutates after it)', () => {
  let h: Harness;
  let gated: GatedStore;
  let late: Sluice;

  beforeEach(async () => {
    h = await createHarness();
    await h.createTable(eventsTable('held'));
    gated = new GatedStore(h.store);
    late = h.otherProcess(gated).sluice;
  });

  afterEach(async () => {
    await h.close();
  });

  it('a flush that passed its open check does not commit after a poison held only in Redis', async () => {
    await writeRows(h.sluice, 'held', eventRows(1, 5));
    await h.sluice.shards.seal('held', 0);
    const gate = gated.hold('get', /\/wal\//);
    const flush = late.shards.flush('held', 0);
    await gate.reached;
    const refusing = h.store.inject({ op: 'putIfAbsent', key: '**/_manifest/**', fault: 'fail' });
    const outcome = await poison(h.parts, { table: 'held', shard: 0 }, { ...REASON, generation: 1 });
    refusing.remove();
    expect(outcome).toMatchObject({ poisoned: true, durable: false });
    gate.release();

    await expect(flush).rejects.toMatchObject({ code: 'SHARD_POISONED' });
    const manifest = await h.parts.manifests.read('held', 0);
    expect(manifest.committed).toEqual([]);
    expect(manifest.currentGeneration).toBe(1);
  });

  it('a seal that passed its open check writes no hole tombstone after the poison', async () => {
    await writeRows(h.sluice, 'held', eventRows(1, 5));
    const gone = await h.parts.seqAllocation.allocate('held', 0, h.config.limits, 0, { sealDelayMs: 1_000 });
    if (gone.kind !== 'ok') throw new Error(`allocation refused: ${gone.kind}`);
    await h.parts.seqAllocation.abandon('held', 0, gone.seq);
    await writeRows(h.sluice, 'held', eventRows(6, 10));
    const gate = gated.hold('list', /\/wal\/$/);
    const seal = late.shards.seal('held', 0);
    await gate.reached;
    await poison(h.parts, { table: 'held', shard: 0 }, { ...REASON, generation: 1 });
    gate.release();

    await expect(seal).rejects.toMatchObject({ code: 'SHARD_POISONED' });
    expect(await h.store.get(walKey('held', 0, gone.seq))).toBeNull();
    expect((await h.parts.manifests.read('held', 0)).sealed).toEqual([]);
  });

  it("GC's pruning leaves a poisoned shard's manifest as it is", async () => {
    await writeRows(h.sluice, 'held', eventRows(1, 5));
    await h.sluice.shards.seal('held', 0);
    expect(await h.sluice.shards.flush('held', 0)).toEqual([1]);
    await h.sluice.tableWork.merge('held');
    await writeRows(h.sluice, 'held', eventRows(6, 10));
    await h.sluice.shards.seal('held', 0);
    await poison(h.parts, { table: 'held', shard: 0 }, { ...REASON, generation: 2 });
    const before = await h.parts.manifests.read('held', 0);
    expect(before.poison).not.toBeNull();

    const table = await h.sluice.tables.describe('held');
    await collectTable(h.parts, table, { now: Date.now() + 10 * 3_600_000, graceMs: 1000 });
    const after = await h.parts.manifests.read('held', 0);
    expect(after.version).toBe(before.version);
    expect(after.committed.map((c) => c.generation)).toEqual([1]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectTable } from '../../shared/lsm/gc.ts';
import { poison } from '../../shared/lsm/poison.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { l0Rows, laneSeqs, laneTable, rowsOfShard, sealAndFlush } from '../support/table-lane.ts';

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

describe('poison on a table lane (docs/table-wal-lane.md, §4 "Poison")', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness({ wal: { groupCommit: true } });
    await h.createTable(laneTable('lanepoison', 4));
  });

  afterEach(async () => {
    await h.close();
  });

  /** Rows of ids 1..`to` that route to none of `shards`. */
  async function avoiding(shards: number[], to: number) {
    const rows = eventRows(1, to);
    const inside = new Set<number>();
    for (const shard of shards) {
      for (const row of await rowsOfShard(h, 'lanepoison', shard, rows)) inside.add(Number(row.id));
    }
    return rows.filter((row) => !inside.has(Number(row.id)));
  }

  it("I7/I19: a write touching a poisoned shard lands nothing on its healthy shards; the group's other writes are acked", async () => {
    // The lane's Redis state exists before the poison: its first write would read the manifest.
    const warm = eventRows(200, 240);
    await writeRows(h.sluice, 'lanepoison', warm);
    expect(
      await poison(h.parts, { table: 'lanepoison', shard: 2 }, { ...REASON, generation: null }),
    ).toMatchObject({ poisoned: true, durable: true });
    const touching = eventRows(1, 40);
    const clear = (await avoiding([2], 80)).filter((row) => Number(row.id) > 40);
    const [refused, acked] = await Promise.allSettled([
      writeRows(h.sluice, 'lanepoison', touching),
      writeRows(h.sluice, 'lanepoison', clear),
    ]);
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'SHARD_POISONED' } });
    expect(acked.status).toBe('fulfilled');
    expect(await laneSeqs(h, 'lanepoison')).toHaveLength(2);

    await sealAndFlush(h, 'lanepoison', 2);
    await h.sluice.shards.seal('lanepoison', 3);
    await h.sluice.shards.flush('lanepoison', 3);
    for (const shard of [0, 1, 3]) {
      expect(await l0Rows(h, 'lanepoison', shard)).toEqual(
        await rowsOfShard(h, 'lanepoison', shard, [...clear, ...warm]),
      );
    }
    await expect(h.sluice.shards.seal('lanepoison', 2)).rejects.toMatchObject({ code: 'SHARD_POISONED' });
  });

  it('I8: reopen flushes the sections the shard missed, and the lane takes its writes again', async () => {
    const before = eventRows(1, 40);
    await writeRows(h.sluice, 'lanepoison', before);
    await poison(h.parts, { table: 'lanepoison', shard: 2 }, { ...REASON, generation: null });
    const meanwhile = (await avoiding([2], 80)).filter((row) => Number(row.id) > 40);
    await writeRows(h.sluice, 'lanepoison', meanwhile);
    for (const shard of [0, 1, 3]) {
      await h.sluice.shards.seal('lanepoison', shard);
      await h.sluice.shards.flush('lanepoison', shard);
    }
    await expect(writeRows(h.sluice, 'lanepoison', before)).rejects.toMatchObject({ code: 'SHARD_POISONED' });

    await h.sluice.shards.reopen('lanepoison', 2);
    const after = eventRows(81, 120);
    await writeRows(h.sluice, 'lanepoison', after);
    await h.sluice.shards.seal('lanepoison', 2);
    await h.sluice.shards.flush('lanepoison', 2);
    const manifest = await h.parts.manifests.read('lanepoison', 2);
    expect([manifest.walCursor, manifest.sealed]).toEqual([3, []]);
    expect(await l0Rows(h, 'lanepoison', 2)).toEqual(
      await rowsOfShard(h, 'lanepoison', 2, [...before, ...after]),
    );
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitMerge } from '../../shared/lsm/base-transitions.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  eventRows,
  eventsTable,
  flushedGeneration,
  lookupJson,
  pendingGenerations,
  readAll,
  writeRows,
} from '../support/rows.ts';

describe('merge into the base table (I11, I14)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('moves committed generations into one base run and advances every watermark in one commit', async () => {
    await h.createTable(eventsTable('basic', { shards: 2 }));
    await flushedGeneration(h.sluice, 'basic', eventRows(1, 20));
    await flushedGeneration(h.sluice, 'basic', eventRows(21, 40));
    expect(await pendingGenerations(h.sluice, 'basic')).toBe(4);
    const outcome = await h.sluice.merge('basic');
    expect(outcome.merged).toEqual([
      { shard: 0, from: 1, to: 2 },
      { shard: 1, from: 1, to: 2 },
    ]);
    const base = await h.sluice.bases.read('basic');
    expect(base.version).toBe(1);
    expect(base.runs).toHaveLength(1);
    expect(base.runs[0]!.rows).toBe(40);
    expect(base.mergedThrough).toEqual({ '0': 2, '1': 2 });
    expect(await pendingGenerations(h.sluice, 'basic')).toBe(0);
    expect(await readAll(h.sluice, 'basic', 9)).toEqual(eventRows(1, 40));
    expect(await lookupJson(h.sluice, 'basic', 33)).toEqual(eventRows(33, 33)[0]);
  });

  it('caps a merge at maxGenerationsPerMerge, oldest first, contiguous per shard', async () => {
    await h.createTable(eventsTable('capped', { settings: { maxGenerationsPerMerge: 2 } }));
    for (let g = 0; g < 5; g++)
      await flushedGeneration(h.sluice, 'capped', eventRows(g * 10 + 1, g * 10 + 10));
    expect((await h.sluice.merge('capped')).merged).toEqual([{ shard: 0, from: 1, to: 2 }]);
    expect((await h.sluice.merge('capped')).merged).toEqual([{ shard: 0, from: 3, to: 4 }]);
    expect((await h.sluice.merge('capped')).merged).toEqual([{ shard: 0, from: 5, to: 5 }]);
    expect((await h.sluice.merge('capped')).merged).toEqual([]);
    expect(await readAll(h.sluice, 'capped')).toEqual(eventRows(1, 50));
  });

  it('I10: newer values and deletes in L0 and the WAL shadow the base; deletes stay deleted through merges', async () => {
    await h.createTable(eventsTable('shadow', { shards: 2 }));
    await flushedGeneration(h.sluice, 'shadow', eventRows(1, 20, 1));
    await h.sluice.merge('shadow');
    await flushedGeneration(h.sluice, 'shadow', eventRows(5, 8, 2));
    await h.sluice.delete('shadow', [1, 2, 10]);
    await writeRows(h.sluice, 'shadow', eventRows(15, 15, 3));
    const expected = [
      ...eventRows(3, 4, 1),
      ...eventRows(5, 8, 2),
      ...eventRows(9, 9, 1),
      ...eventRows(11, 14, 1),
      ...eventRows(15, 15, 3),
      ...eventRows(16, 20, 1),
    ];
    expect(await readAll(h.sluice, 'shadow', 4)).toEqual(expected);
    for (let shard = 0; shard < 2; shard++) {
      await h.sluice.seal('shadow', shard);
      await h.sluice.flush('shadow', shard);
    }
    await h.sluice.merge('shadow');
    expect(await pendingGenerations(h.sluice, 'shadow')).toBe(0);
    expect(await readAll(h.sluice, 'shadow', 4)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'shadow', 10)).toBeNull();
    expect((await h.sluice.bases.read('shadow')).runs[0]!.tombstones).toBe(3);
  });

  it('I11: running the same merge twice commits once; a merge planned on a stale base is refused', async () => {
    await h.createTable(eventsTable('twice'));
    await flushedGeneration(h.sluice, 'twice', eventRows(1, 10));
    const [a, b] = await Promise.all([h.sluice.merge('twice'), h.sluice.merge('twice')]);
    const base = await h.sluice.bases.read('twice');
    expect(base.mergedThrough).toEqual({ '0': 1 });
    expect(base.runs).toHaveLength(1);
    expect(a.merged.length + b.merged.length).toBe(1);
    const stale = { shard: 0, from: 1, to: 1 };
    expect(commitMerge(base, [stale], base.runs[0]!)).toBeNull();
    await flushedGeneration(h.sluice, 'twice', eventRows(11, 20));
    await flushedGeneration(h.sluice, 'twice', eventRows(21, 30));
    expect(() => commitMerge(base, [{ shard: 0, from: 3, to: 3 }], base.runs[0]!)).toThrow(
      expect.objectContaining({ code: 'FENCED' }),
    );
    expect(await readAll(h.sluice, 'twice')).toEqual(eventRows(1, 30));
  });

  it('a merge whose commit fails after its run was written converges on the next run, no key doubled', async () => {
    await h.createTable(eventsTable('crash'));
    await flushedGeneration(h.sluice, 'crash', eventRows(1, 10));
    const fault = h.store.inject({
      op: 'putIfAbsent',
      key: 'tables/crash/base/_manifest/*',
      fault: 'fail',
      times: 1,
    });
    await expect(h.sluice.merge('crash')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(fault.hits).toBe(1);
    expect((await h.sluice.bases.read('crash')).version).toBe(0);
    expect((await h.sluice.merge('crash')).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect(await readAll(h.sluice, 'crash')).toEqual(eventRows(1, 10));
    const fragments: string[] = [];
    for await (const page of h.store.list('tables/crash/base/data/'))
      fragments.push(...page.map((m) => m.key));
    expect(fragments).toHaveLength(2);
    expect((await h.sluice.bases.read('crash')).runs).toHaveLength(1);
  });

  it('a merge whose commit landed but whose answer was lost is a success, and the next merge a no-op', async () => {
    await h.createTable(eventsTable('lost'));
    await flushedGeneration(h.sluice, 'lost', eventRows(1, 10));
    h.store.inject({ op: 'putIfAbsent', key: 'tables/lost/base/_manifest/*', fault: 'lostAck', times: 1 });
    expect((await h.sluice.merge('lost')).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect((await h.sluice.merge('lost')).merged).toEqual([]);
    expect((await h.sluice.bases.read('lost')).runs).toHaveLength(1);
  });

  it('I14: appends during a merge land in later generations and survive; a generation sealed mid-merge merges next time', async () => {
    await h.createTable(eventsTable('during'));
    await flushedGeneration(h.sluice, 'during', eventRows(1, 10));
    h.store.inject({ op: 'get', key: 'tables/during/shards/0/gen/*', latencyMs: 300, times: 1 });
    const merging = h.sluice.merge('during');
    const started = Date.now();
    await flushedGeneration(h.sluice, 'during', eventRows(11, 20));
    const scan = await h.sluice.scan('during', { limit: 100 });
    expect(Date.now() - started).toBeLessThan(300);
    expect(scan.rows.numRows).toBe(20);
    expect((await merging).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect(await pendingGenerations(h.sluice, 'during')).toBe(1);
    expect((await h.sluice.merge('during')).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    expect(await readAll(h.sluice, 'during')).toEqual(eventRows(1, 20));
  });

  it('compaction merges a tier of runs into one and drops tombstones when it rewrites the oldest run', async () => {
    await h.createTable(
      eventsTable('compact', { settings: { compactAfterRuns: 3, maxGenerationsPerMerge: 1 } }),
    );
    await flushedGeneration(h.sluice, 'compact', eventRows(1, 10, 1));
    await h.sluice.merge('compact');
    await h.sluice.delete('compact', [1, 2, 3]);
    await h.sluice.seal('compact', 0);
    await h.sluice.flush('compact', 0);
    await h.sluice.merge('compact');
    await flushedGeneration(h.sluice, 'compact', eventRows(4, 6, 2));
    await h.sluice.merge('compact');
    const before = await h.sluice.bases.read('compact');
    expect(before.runs).toHaveLength(3);
    const { plan, run } = await h.sluice.compact('compact');
    expect(plan?.reason).toBe('tier');
    expect(plan?.dropDeletes).toBe(true);
    const after = await h.sluice.bases.read('compact');
    expect(after.runs.map((r) => r.id)).toEqual([run!.id]);
    expect(after.runs[0]).toMatchObject({ rows: 7, tombstones: 0 });
    expect(after.mergedThrough).toEqual(before.mergedThrough);
    expect(await readAll(h.sluice, 'compact')).toEqual([...eventRows(4, 6, 2), ...eventRows(7, 10, 1)]);
    expect((await h.sluice.compact('compact')).plan).toBeNull();
  });
});

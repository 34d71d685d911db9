import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitMerge } from '../../shared/lsm/base-transitions.ts';
import {
  baseManifestKey,
  baseManifestPrefix,
  generationPrefix,
  tableConfigKey,
} from '../../shared/table/paths.ts';
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

  it('moves committed generations into the base dataset and advances every watermark in one commit', async () => {
    await h.createTable(eventsTable('basic', { shards: 2 }));
    await flushedGeneration(h.sluice, 'basic', eventRows(1, 20));
    await flushedGeneration(h.sluice, 'basic', eventRows(21, 40));
    expect(await pendingGenerations(h.sluice, 'basic')).toBe(4);
    const outcome = await h.sluice.tableWork.merge('basic');
    expect(outcome.merged).toEqual([
      { shard: 0, from: 1, to: 2 },
      { shard: 1, from: 1, to: 2 },
    ]);
    const base = await h.parts.bases.read('basic');
    expect(base.version).toBe(1);
    expect(base.lanceVersion).toBe(outcome.lanceVersion);
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('basic'))).baseRows).toBe(40);
    expect(base.mergedThrough).toEqual({ '0': 2, '1': 2 });
    expect(await pendingGenerations(h.sluice, 'basic')).toBe(0);
    expect(await readAll(h.sluice, 'basic', 9)).toEqual(eventRows(1, 40));
    expect(await lookupJson(h.sluice, 'basic', 33)).toEqual(eventRows(33, 33)[0]);
  });

  it('caps a merge at maxGenerationsPerMerge, oldest first, contiguous per shard', async () => {
    await h.createTable(eventsTable('capped', { settings: { maxGenerationsPerMerge: 2 } }));
    for (let g = 0; g < 5; g++)
      await flushedGeneration(h.sluice, 'capped', eventRows(g * 10 + 1, g * 10 + 10));
    expect((await h.sluice.tableWork.merge('capped')).merged).toEqual([{ shard: 0, from: 1, to: 2 }]);
    expect((await h.sluice.tableWork.merge('capped')).merged).toEqual([{ shard: 0, from: 3, to: 4 }]);
    expect((await h.sluice.tableWork.merge('capped')).merged).toEqual([{ shard: 0, from: 5, to: 5 }]);
    expect((await h.sluice.tableWork.merge('capped')).merged).toEqual([]);
    expect(await readAll(h.sluice, 'capped')).toEqual(eventRows(1, 50));
  });

  it('I10: newer values and deletes in L0 and the WAL shadow the base; deletes stay deleted through merges', async () => {
    await h.createTable(eventsTable('shadow', { shards: 2 }));
    await flushedGeneration(h.sluice, 'shadow', eventRows(1, 20, 1));
    await h.sluice.tableWork.merge('shadow');
    await flushedGeneration(h.sluice, 'shadow', eventRows(5, 8, 2));
    await h.sluice.writes.delete('shadow', [1, 2, 10]);
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
      await h.sluice.shards.seal('shadow', shard);
      await h.sluice.shards.flush('shadow', shard);
    }
    await h.sluice.tableWork.merge('shadow');
    expect(await pendingGenerations(h.sluice, 'shadow')).toBe(0);
    expect(await readAll(h.sluice, 'shadow', 4)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'shadow', 10)).toBeNull();
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('shadow'))).baseRows).toBe(
      expected.length,
    );
  });

  it('I11: running the same merge twice records once; a merge planned on a stale base is refused', async () => {
    await h.createTable(eventsTable('twice'));
    await flushedGeneration(h.sluice, 'twice', eventRows(1, 10));
    const [a, b] = await Promise.all([h.sluice.tableWork.merge('twice'), h.sluice.tableWork.merge('twice')]);
    const base = await h.parts.bases.read('twice');
    expect(base.mergedThrough).toEqual({ '0': 1 });
    expect(a.merged.length + b.merged.length).toBe(1);
    const stale = { shard: 0, from: 1, to: 1 };
    expect(commitMerge(base, null, [stale], 99)).toBeNull();
    await flushedGeneration(h.sluice, 'twice', eventRows(11, 20));
    await flushedGeneration(h.sluice, 'twice', eventRows(21, 30));
    expect(() => commitMerge(base, base.lanceVersion, [{ shard: 0, from: 3, to: 3 }], 99)).toThrow(
      expect.objectContaining({ code: 'FENCED' }),
    );
    expect(() => commitMerge(base, (base.lanceVersion ?? 0) - 1, [{ shard: 0, from: 2, to: 2 }], 99)).toThrow(
      expect.objectContaining({ code: 'FENCED' }),
    );
    expect(await readAll(h.sluice, 'twice')).toEqual(eventRows(1, 30));
  });

  it('a merge whose record fails after its Lance commit converges on the next run, no key doubled', async () => {
    await h.createTable(eventsTable('crash'));
    await flushedGeneration(h.sluice, 'crash', eventRows(1, 10));
    const fault = h.store.inject({
      op: 'putIfAbsent',
      key: `${baseManifestPrefix('crash')}*`,
      fault: 'fail',
      times: 1,
    });
    await expect(h.sluice.tableWork.merge('crash')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(fault.hits).toBe(1);
    expect((await h.parts.bases.read('crash')).version).toBe(0);
    expect(await readAll(h.sluice, 'crash')).toEqual(eventRows(1, 10));
    expect((await h.sluice.tableWork.merge('crash')).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect(await readAll(h.sluice, 'crash')).toEqual(eventRows(1, 10));
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('crash'))).baseRows).toBe(10);
  });

  it('a merge whose record landed but whose answer was lost is a success, and the next merge a no-op', async () => {
    await h.createTable(eventsTable('lost'));
    await flushedGeneration(h.sluice, 'lost', eventRows(1, 10));
    h.store.inject({ op: 'putIfAbsent', key: `${baseManifestPrefix('lost')}*`, fault: 'lostAck', times: 1 });
    expect((await h.sluice.tableWork.merge('lost')).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect((await h.sluice.tableWork.merge('lost')).merged).toEqual([]);
    expect((await h.parts.bases.read('lost')).version).toBe(1);
    expect(await readAll(h.sluice, 'lost')).toEqual(eventRows(1, 10));
  });
  it('I14: appends during a merge land in later generations and survive; a generation sealed mid-merge merges next time', async () => {
    await h.createTable(eventsTable('during'));
    await flushedGeneration(h.sluice, 'during', eventRows(1, 10));
    h.store.inject({ op: 'get', key: `${generationPrefix('during', 0)}*`, latencyMs: 2_000, times: 1 });
    let mergeEnded = false;
    const merging = h.sluice.tableWork.merge('during').finally(() => {
      mergeEnded = true;
    });
    await flushedGeneration(h.sluice, 'during', eventRows(11, 20));
    const scan = await h.sluice.reads.scan('during', { limit: 100 });
    // The append and the read went through while the merge was still held inside its read.
    expect(mergeEnded).toBe(false);
    expect(scan.rows.numRows).toBe(20);
    expect((await merging).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    expect(await pendingGenerations(h.sluice, 'during')).toBe(1);
    expect((await h.sluice.tableWork.merge('during')).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    expect(await readAll(h.sluice, 'during')).toEqual(eventRows(1, 20));
  });

  it('optimize compacts the base into fewer fragments and is recorded without moving a watermark', async () => {
    await h.createTable(eventsTable('optimize', { settings: { maxGenerationsPerMerge: 1 } }));
    await flushedGeneration(h.sluice, 'optimize', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('optimize');
    await h.sluice.writes.delete('optimize', [1, 2, 3]);
    await h.sluice.shards.seal('optimize', 0);
    await h.sluice.shards.flush('optimize', 0);
    await h.sluice.tableWork.merge('optimize');
    await flushedGeneration(h.sluice, 'optimize', eventRows(4, 6, 2));
    await h.sluice.tableWork.merge('optimize');
    const before = await h.parts.bases.read('optimize');
    expect(before.mergesSinceOptimize).toBe(3);
    const fragmentsBefore = (
      await (
        await h.parts.datasets.at(await h.sluice.tables.describe('optimize'), before.lanceVersion!)
      ).stats()
    ).fragmentStats.numFragments;
    const { lanceVersion } = await h.sluice.tableWork.optimize('optimize');
    const after = await h.parts.bases.read('optimize');
    expect(after.lanceVersion).toBe(lanceVersion);
    expect(lanceVersion).toBeGreaterThan(before.lanceVersion!);
    expect(after.mergesSinceOptimize).toBe(0);
    expect(after.mergedThrough).toEqual(before.mergedThrough);
    const fragmentsAfter = (
      await (await h.parts.datasets.at(await h.sluice.tables.describe('optimize'), lanceVersion!)).stats()
    ).fragmentStats.numFragments;
    expect(fragmentsAfter).toBeLessThan(fragmentsBefore);
    expect(await readAll(h.sluice, 'optimize')).toEqual([...eventRows(4, 6, 2), ...eventRows(7, 10, 1)]);
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('optimize'))).baseRows).toBe(7);
  });

  it('a table whose base is in the earlier sorted-run format is refused with the fix named', async () => {
    await h.createTable(eventsTable('legacy'));
    // As an earlier Sluice stored it: with the settings of its sorted-run base.
    const stored = JSON.parse(new TextDecoder().decode((await h.store.get(tableConfigKey('legacy')))!.body));
    stored.settings = { ...stored.settings, compactAfterRuns: 4, maxBaseRuns: 12, compactMaxDeadRatio: 0.25 };
    await h.store.put(tableConfigKey('legacy'), new TextEncoder().encode(JSON.stringify(stored)));
    await flushedGeneration(h.sluice, 'legacy', eventRows(1, 5));
    const earlier = {
      formatVersion: 1,
      table: 'legacy',
      version: 1,
      commitId: 'c',
      updatedAt: new Date().toISOString(),
      runs: [],
      mergedThrough: {},
      retired: [],
    };
    await h.store.putIfAbsent(
      baseManifestKey('legacy', 1),
      new TextEncoder().encode(JSON.stringify(earlier)),
    );
    const refused = expect.objectContaining({
      code: 'BASE_FORMAT_OUTDATED',
      message: expect.stringContaining('create a new table'),
    });
    await expect(h.sluice.tableWork.merge('legacy')).rejects.toEqual(refused);
    await expect(h.sluice.reads.scan('legacy', { limit: 10 })).rejects.toEqual(refused);
    await expect(h.sluice.reads.lookup('legacy', 1)).rejects.toEqual(refused);
  });
});

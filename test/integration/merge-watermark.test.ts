import { Table } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { fromLanceArrow, lanceDb, toLanceArrow } from '../../shared/base/lance-module.ts';
import type { MergeStep } from '../../shared/lsm/merge.ts';
import { dieAt } from '../support/die-at.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { spawnLogged } from '../support/logged-process.ts';
import {
  eventRows,
  eventsTable,
  flushedGeneration,
  inKeyOrder,
  lookupJson,
  readAll,
} from '../support/rows.ts';
import { childEnv } from '../support/worker-process.ts';

/** The rows an outside reader sees at the dataset's latest version, in key order. */
async function latestRows(h: Harness, table: string) {
  const db = await lanceDb().connect(`${h.dir.path}/tables/${table}`);
  const rows = fromLanceArrow(await (await db.openTable('base')).query().toArrow());
  return inKeyOrder(
    (await h.sluice.tables.describe(table)).schema,
    tableToJsonRows((await h.sluice.tables.describe(table)).schema, rows),
  );
}

/** Merge options that hold the merge the first time it reaches `at`, until released. */
function holdOnce(at: MergeStep) {
  let release: () => void = () => undefined;
  let reachedIt: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reachedIt = resolve;
  });
  let held = false;
  return {
    reached,
    release: () => release(),
    async onStep(step: MergeStep) {
      if (step !== at || held) return;
      held = true;
      await new Promise<void>((resolve) => {
        release = resolve;
        reachedIt();
      });
    },
  };
}

describe('the merge watermark moves with the Lance commit (I11)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('a merge dying before its Lance commit leaves nothing behind; the redo applies once', async () => {
    await h.createTable(eventsTable('before'));
    await flushedGeneration(h.sluice, 'before', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('before');
    await flushedGeneration(h.sluice, 'before', eventRows(5, 15, 2));
    const recorded = (await h.parts.bases.read('before')).lanceVersion;
    await expect(h.sluice.tableWork.merge('before', dieAt('prepared'))).rejects.toThrow('died at prepared');
    expect((await h.parts.bases.read('before')).lanceVersion).toBe(recorded);
    const expected = [...eventRows(1, 4, 1), ...eventRows(5, 15, 2)];
    expect(await readAll(h.sluice, 'before', 4)).toEqual(expected);
    expect((await h.sluice.tableWork.merge('before')).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    expect(await readAll(h.sluice, 'before', 4)).toEqual(expected);
    expect(await latestRows(h, 'before')).toEqual(expected);
  });

  it('a merge dying between its Lance commit and its record: reads stay exact, the redo restores and applies once', async () => {
    await h.createTable(eventsTable('between'));
    await flushedGeneration(h.sluice, 'between', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('between');
    await flushedGeneration(h.sluice, 'between', eventRows(5, 15, 2));
    await h.sluice.writes.delete('between', [1, 2]);
    await h.sluice.shards.seal('between', 0);
    await h.sluice.shards.flush('between', 0);
    const recorded = await h.parts.bases.read('between');
    await expect(h.sluice.tableWork.merge('between', dieAt('lance-committed'))).rejects.toThrow(
      'died at lance-committed',
    );
    expect(await h.parts.bases.read('between')).toEqual(recorded);
    const expected = [...eventRows(3, 4, 1), ...eventRows(5, 15, 2)];
    // The unrecorded Lance commit holds the same content the redo writes again.
    expect(await latestRows(h, 'between')).toEqual(expected);
    expect(await readAll(h.sluice, 'between', 4)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'between', 1)).toBeNull();
    expect((await h.sluice.tableWork.merge('between')).merged).toEqual([{ shard: 0, from: 2, to: 3 }]);
    expect(await readAll(h.sluice, 'between', 4)).toEqual(expected);
    expect(await latestRows(h, 'between')).toEqual(expected);
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('between'))).baseRows).toBe(
      expected.length,
    );
    expect((await h.sluice.tableWork.merge('between')).merged).toEqual([]);
  });

  it('a redelivered merge of generations already recorded changes nothing', async () => {
    await h.createTable(eventsTable('again'));
    await flushedGeneration(h.sluice, 'again', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('again');
    const recorded = await h.parts.bases.read('again');
    expect((await h.sluice.tableWork.merge('again')).merged).toEqual([]);
    expect(await h.parts.bases.read('again')).toEqual(recorded);
    expect(await latestRows(h, 'again')).toEqual(eventRows(1, 10, 1));
  });

  it('a zombie merge that commits old generations after newer ones were recorded is never recorded and is undone', async () => {
    await h.createTable(eventsTable('zombie'));
    await flushedGeneration(h.sluice, 'zombie', eventRows(1, 10, 1));
    const held = holdOnce('prepared');
    const zombie = h.sluice.tableWork.merge('zombie', held);
    await held.reached;
    expect((await h.sluice.tableWork.merge('zombie')).merged).toEqual([{ shard: 0, from: 1, to: 1 }]);
    await flushedGeneration(h.sluice, 'zombie', eventRows(1, 5, 2));
    expect((await h.sluice.tableWork.merge('zombie')).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    const recorded = await h.parts.bases.read('zombie');
    held.release();
    expect((await zombie).merged).toEqual([]);
    expect(await h.parts.bases.read('zombie')).toEqual(recorded);
    const expected = [...eventRows(1, 5, 2), ...eventRows(6, 10, 1)];
    expect(await readAll(h.sluice, 'zombie', 3)).toEqual(expected);
    expect(await latestRows(h, 'zombie')).toEqual(expected);
    expect(await lookupJson(h.sluice, 'zombie', 3)).toEqual(eventRows(3, 3, 2)[0]);
  });

  it('a merge whose Lance commit is refused for an overwrite that landed meanwhile plans again instead of failing', async () => {
    // Two deliveries of one merge, or a user's own overwrite: Lance refuses the stale
    // mergeInsert ("Incompatible transaction") rather than committing above it.
    await h.createTable(eventsTable('overwritten'));
    await flushedGeneration(h.sluice, 'overwritten', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('overwritten');
    await flushedGeneration(h.sluice, 'overwritten', eventRows(1, 5, 2));
    const held = holdOnce('prepared');
    const merge = h.sluice.tableWork.merge('overwritten', held);
    await held.reached;
    const db = await lanceDb().connect(`${h.dir.path}/tables/overwritten`);
    const base = await db.openTable('base');
    await base.add(await base.query().toArrow(), { mode: 'overwrite' });
    held.release();

    expect((await merge).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    const expected = [...eventRows(1, 5, 2), ...eventRows(6, 10, 1)];
    expect(await readAll(h.sluice, 'overwritten', 3)).toEqual(expected);
    expect(await latestRows(h, 'overwritten')).toEqual(expected);
  });

  it("a zombie merge's commit landing while an optimize runs is never recorded: the optimize restores and records nothing", async () => {
    await h.createTable(eventsTable('optimized'));
    await flushedGeneration(h.sluice, 'optimized', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('optimized');
    await flushedGeneration(h.sluice, 'optimized', eventRows(1, 10, 2));
    await h.sluice.tableWork.merge('optimized');
    const recorded = await h.parts.bases.read('optimized');
    const outcome = await h.sluice.tableWork.optimize('optimized', {
      async onStep(step) {
        // A redelivered merge of generation 1 commits its old values on the latest version,
        // after the optimize prepared the base and before Lance's optimize starts.
        if (step !== 'prepared') return;
        const db = await lanceDb().connect(`${h.dir.path}/tables/optimized`);
        const base = await db.openTable('base');
        const def = await h.sluice.tables.describe('optimized');
        const rows = jsonRowsToRecordBatch(def.schema, eventRows(1, 10, 1));
        await base
          .mergeInsert('id')
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute(toLanceArrow(new Table([rows])));
      },
    });
    // Lance either builds the optimize on the zombie's commit, and then nothing is recorded, or
    // refuses the optimize's commit, and then the next try restores over the zombie's first.
    if (outcome.lanceVersion === null) expect(await h.parts.bases.read('optimized')).toEqual(recorded);
    else expect(outcome.conflicts).toBeGreaterThan(0);
    expect(await latestRows(h, 'optimized')).toEqual(eventRows(1, 10, 2));
    expect(await lookupJson(h.sluice, 'optimized', 3)).toEqual(eventRows(3, 3, 2)[0]);
    await flushedGeneration(h.sluice, 'optimized', eventRows(11, 12, 3));
    await h.sluice.tableWork.merge('optimized');
    expect((await h.sluice.tableWork.optimize('optimized')).lanceVersion).not.toBeNull();
    expect(await readAll(h.sluice, 'optimized', 4)).toEqual([
      ...eventRows(1, 10, 2),
      ...eventRows(11, 12, 3),
    ]);
  });

  it('kill -9 between the Lance commit and the record: the next merge applies the generations once', async () => {
    await h.createTable(eventsTable('killed'));
    await flushedGeneration(h.sluice, 'killed', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('killed');
    await flushedGeneration(h.sluice, 'killed', eventRows(6, 20, 2));
    for (const step of ['prepared', 'lance-committed'] as const) {
      const child = spawnLogged('test/support/merge-until-step.ts', ['killed', step], childEnv(h.config));
      await child.waitForLine((line) => line.msg === 'merge step', `the merge to reach ${step}`);
      await child.stop('SIGKILL');
      expect((await h.parts.bases.read('killed')).mergedThrough).toEqual({ '0': 1 });
    }
    const expected = [...eventRows(1, 5, 1), ...eventRows(6, 20, 2)];
    expect(await readAll(h.sluice, 'killed', 7)).toEqual(expected);
    expect((await h.sluice.tableWork.merge('killed')).merged).toEqual([{ shard: 0, from: 2, to: 2 }]);
    expect(await readAll(h.sluice, 'killed', 7)).toEqual(expected);
    expect(await latestRows(h, 'killed')).toEqual(expected);
    expect((await h.sluice.reads.stats(await h.sluice.tables.describe('killed'))).baseRows).toBe(20);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { pruneMerged } from '../../shared/lsm/manifest-transitions.ts';
import { runOptimize } from '../../shared/lsm/optimize.ts';
import { overlayComputations } from '../../shared/metrics.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { counterSince } from '../support/counter-since.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  eventRows,
  eventsTable,
  flushedGeneration,
  inKeyOrder,
  lookupJson,
  readAll,
  writeRows,
} from '../support/rows.ts';

describe('reads of the Lance base while merges and optimize run (I10)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('a scan paged across merges, optimize and new writes returns every row of its snapshot exactly once', async () => {
    await h.createTable(eventsTable('paged', { shards: 2, settings: { maxGenerationsPerMerge: 2 } }));
    await flushedGeneration(h.sluice, 'paged', eventRows(1, 60, 1));
    await h.sluice.tableWork.merge('paged');
    await flushedGeneration(h.sluice, 'paged', eventRows(50, 80, 2));
    await writeRows(h.sluice, 'paged', eventRows(75, 90, 3));
    await h.sluice.writes.delete('paged', [2, 55]);
    const snapshot = [
      ...eventRows(1, 1, 1),
      ...eventRows(3, 49, 1),
      ...eventRows(50, 54, 2),
      ...eventRows(56, 74, 2),
      ...eventRows(75, 90, 3),
    ];
    const def = await h.sluice.tables.describe('paged');
    const seen: JsonRow[] = [];
    let after: string | null = null;
    let page = 0;
    do {
      const result = await h.sluice.reads.scan('paged', { limit: 9, after });
      seen.push(...tableToJsonRows(def.schema, result.rows));
      after = result.next;
      page++;
      // Between pages the table moves on: everything is merged, optimized, overwritten and deleted again.
      if (page === 1) {
        for (let shard = 0; shard < 2; shard++) {
          await h.sluice.shards.seal('paged', shard);
          await h.sluice.shards.flush('paged', shard);
        }
        await h.sluice.tableWork.merge('paged');
        await h.sluice.tableWork.merge('paged');
      }
      if (page === 3) await h.sluice.tableWork.optimize('paged');
      if (page === 4) {
        await flushedGeneration(h.sluice, 'paged', eventRows(1, 30, 4));
        await h.sluice.writes.delete('paged', [40, 41]);
        await h.sluice.tableWork.merge('paged');
      }
    } while (after);
    expect(page).toBeGreaterThan(5);
    expect(inKeyOrder(def.schema, seen)).toEqual(snapshot);
    const now = [
      ...eventRows(1, 30, 4),
      ...eventRows(31, 39, 1),
      ...eventRows(42, 49, 1),
      ...eventRows(50, 54, 2),
      ...eventRows(56, 74, 2),
      ...eventRows(75, 90, 3),
    ];
    expect(await readAll(h.sluice, 'paged', 11)).toEqual(now);
    expect(await lookupJson(h.sluice, 'paged', 40)).toBeNull();
    expect(await lookupJson(h.sluice, 'paged', 31)).toEqual(eventRows(31, 31, 1)[0]);
  });

  it("the pages of a scan merge its snapshot's overlay once, and a scan of the same snapshot reuses it", async () => {
    await h.createTable(eventsTable('reuse', { shards: 2 }));
    await flushedGeneration(h.sluice, 'reuse', eventRows(1, 40, 1));
    await h.sluice.tableWork.merge('reuse');
    await flushedGeneration(h.sluice, 'reuse', eventRows(30, 60, 2));
    await writeRows(h.sluice, 'reuse', eventRows(55, 70, 3));
    await h.sluice.writes.delete('reuse', [35, 65]);
    const live = [
      ...eventRows(1, 29, 1),
      ...eventRows(30, 34, 2),
      ...eventRows(36, 54, 2),
      ...eventRows(55, 64, 3),
      ...eventRows(66, 70, 3),
    ];
    const computed = await counterSince(overlayComputations, {});
    // Pages of 7: five of the overlay's 39 live rows, then the base's 29 the overlay leaves.
    expect(await readAll(h.sluice, 'reuse', 7)).toEqual(live);
    // One merge of the overlay in key order, and one set of the keys it hides in the base.
    expect(await computed()).toBe(2);
    expect(await readAll(h.sluice, 'reuse', 5)).toEqual(live);
    expect(await computed()).toBe(2);
  });

  it('lookups and scans stay exact while merges and an optimize run concurrently with them', async () => {
    await h.createTable(eventsTable('busy', { shards: 2, settings: { maxGenerationsPerMerge: 1 } }));
    await flushedGeneration(h.sluice, 'busy', eventRows(1, 40, 1));
    await h.sluice.tableWork.merge('busy');
    for (let v = 2; v <= 4; v++) await flushedGeneration(h.sluice, 'busy', eventRows(1, 40, v));
    const expected = eventRows(1, 40, 4);
    const background = (async () => {
      for (let i = 0; i < 7; i++) await h.sluice.tableWork.merge('busy');
      await h.sluice.tableWork.optimize('busy');
    })();
    let reads = 0;
    let done = false;
    void background.finally(() => {
      done = true;
    });
    while (!done || reads < 3) {
      expect(await readAll(h.sluice, 'busy', 13)).toEqual(expected);
      expect(await lookupJson(h.sluice, 'busy', 17)).toEqual(expected[16]);
      reads++;
    }
    await background;
    expect((await h.parts.bases.read('busy')).mergedThrough).toEqual({ '0': 4, '1': 4 });
    expect(await readAll(h.sluice, 'busy', 13)).toEqual(expected);
  });

  it("optimize's cleanup keeps the versions a read may use, and removes them once the grace period is past", async () => {
    await h.createTable(eventsTable('cleanup', { settings: { maxGenerationsPerMerge: 1 } }));
    for (let v = 1; v <= 3; v++) {
      await flushedGeneration(h.sluice, 'cleanup', eventRows(1, 10, v));
      await h.sluice.tableWork.merge('cleanup');
    }
    const def = await h.sluice.tables.describe('cleanup');
    const pinned = (await h.parts.bases.read('cleanup')).lanceVersion!;
    const first = await h.sluice.reads.scan('cleanup', { limit: 4 });
    const graceMs = h.config.scheduler.gcGraceSeconds * 1000;
    await flushedGeneration(h.sluice, 'cleanup', eventRows(1, 10, 4));
    await h.sluice.tableWork.merge('cleanup');
    await runOptimize(h.parts, def, { graceMs, slackMs: 0 });
    const versionsKept = (await (await h.parts.datasets.openForWrite(def)).listVersions()).map(
      (v) => v.version,
    );
    expect(versionsKept).toContain(pinned);
    const rest = await readRest(first.next);
    expect(inKeyOrder(def.schema, [...tableToJsonRows(def.schema, first.rows), ...rest])).toEqual(
      eventRows(1, 10, 3),
    );

    await runOptimize(h.parts, def, { graceMs, slackMs: 0, now: Date.now() + 2 * graceMs });
    const versionsLeft = (await (await h.parts.datasets.openForWrite(def)).listVersions()).map(
      (v) => v.version,
    );
    expect(versionsLeft).not.toContain(pinned);
    expect(versionsLeft.length).toBeLessThan(versionsKept.length);
    expect(await readAll(h.sluice, 'cleanup', 3)).toEqual(eventRows(1, 10, 4));
    // Only a clock past the grace period removes them, and then the cursor is refused as expired.
    await expect(h.sluice.reads.scan('cleanup', { limit: 4, after: first.next })).rejects.toMatchObject({
      code: 'CURSOR_EXPIRED',
    });

    async function readRest(after: string | null) {
      const rows: JsonRow[] = [];
      while (after) {
        const page = await h.sluice.reads.scan('cleanup', { limit: 4, after });
        rows.push(...tableToJsonRows(def.schema, page.rows));
        after = page.next;
      }
      return rows;
    }
  });

  it('a reader that stalls between the base manifest and a shard manifest while GC prunes what it would need never answers an old value', async () => {
    await h.createTable(eventsTable('stalled'));
    await flushedGeneration(h.sluice, 'stalled', eventRows(1, 10, 1));
    await h.sluice.tableWork.merge('stalled');
    await flushedGeneration(h.sluice, 'stalled', eventRows(1, 10, 2));
    const def = await h.sluice.tables.describe('stalled');
    const reads = {
      lookup: async (r: Sluice) => tableToJsonRows(def.schema, (await r.reads.lookup('stalled', 3))!),
      count: async (r: Sluice) => (await r.reads.countRows('stalled')).rows,
      scan: async (r: Sluice) =>
        tableToJsonRows(def.schema, (await r.reads.scan('stalled', { limit: 100 })).rows),
    };
    const answers: Record<string, unknown> = {};
    for (const [i, [name, read]] of Object.entries(reads).entries()) {
      const gated = new GatedStore(h.store);
      const shardManifest = gated.hold('list', /shards\/0\/_manifest\//);
      const answer = read(h.otherProcess(gated).sluice);
      await shardManifest.reached;
      // Meanwhile the pending generations merge and GC prunes them from the shard manifest.
      await flushedGeneration(h.sluice, 'stalled', eventRows(100 + i, 100 + i, 3));
      await h.sluice.tableWork.merge('stalled');
      const watermark = (await h.parts.bases.read('stalled')).mergedThrough['0']!;
      await h.parts.manifests.update('stalled', 0, (m) => pruneMerged(m, watermark));
      shardManifest.release();
      answers[name] = await answer;
    }
    expect(answers.lookup).toEqual(eventRows(3, 3, 2));
    expect(answers.count).toBe(12);
    expect(inKeyOrder(def.schema, answers.scan as JsonRow[])).toEqual([
      ...eventRows(1, 10, 2),
      ...eventRows(100, 102, 3),
    ]);
  });
});

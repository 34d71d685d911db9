/**
 * Which pending generations a search reads as one table, and which tables it asks to be
 * built (shared/search/pending-groups.ts): blocks of 8, graphed once closed, and a lone
 * generation built on its own when the search finds it worth it, so that it gets an index
 * and a graph too.
 */
import { describe, expect, it } from 'vitest';
import type { ReadSnapshot } from '../../../shared/read/read-snapshot.ts';
import { pendingGroups } from '../../../shared/search/pending-groups.ts';
import type { TableDef } from '../../../shared/table/table-def.ts';

const table = { name: 't', schema: { version: 1 } } as unknown as TableDef;

/** Generations `from`..`to` of shard 0, each of `rows` rows; only what pendingGroups reads. */
function snapshotOf(from: number, to: number, rows: number): ReadSnapshot {
  const generations = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  return {
    sources: generations.map((g) => ({ key: `t/shards/0/l0/${g}`, shard: 0, generation: g })),
    runs: generations.map(() => ({ size: rows })),
  } as unknown as ReadSnapshot;
}

describe('pending groups', () => {
  it('a lone generation is a table of its own to build and graph, read as such once built', () => {
    const snapshot = snapshotOf(1, 8, 100);
    const built = new Set<string>();
    const plan = pendingGroups(
      table,
      snapshot,
      (key) => built.has(key),
      () => true,
    );
    expect(plan.build.map((g) => [g.key, g.graphed])).toEqual([
      ['t/shards/0/generations-1-7@v1', true],
      ['t/shards/0/generations-8-8@v1', true],
    ]);
    // Nothing built yet: every generation is read as its own run.
    expect(plan.search.map((g) => g.key)).toEqual(snapshot.sources.map((s) => `${s.key}@v1`));

    for (const group of plan.build) built.add(group.key);
    const after = pendingGroups(
      table,
      snapshot,
      (key) => built.has(key),
      () => true,
    );
    expect(after.build).toEqual([]);
    expect(after.search.map((g) => g.key)).toEqual([
      't/shards/0/generations-1-7@v1',
      't/shards/0/generations-8-8@v1',
    ]);
  });

  it('a lone generation not worth a table of its own is left to the search that reads it', () => {
    const sizes: number[] = [];
    const plan = pendingGroups(
      table,
      snapshotOf(1, 8, 100),
      () => false,
      (rows) => {
        sizes.push(rows);
        return false;
      },
    );
    expect(plan.build.map((g) => g.key)).toEqual(['t/shards/0/generations-1-7@v1']);
    expect(sizes).toEqual([100]);
  });

  it("the lowest generation alone at its block's end is built and graphed whatever its rows: no bigger group will take it", () => {
    const plan = pendingGroups(
      table,
      snapshotOf(7, 12, 100),
      () => false,
      () => true,
    );
    expect(plan.build.map((g) => [g.key, g.graphed])).toEqual([
      ['t/shards/0/generations-7-7@v1', true],
      ['t/shards/0/generations-8-12@v1', false],
    ]);
  });

  it('a closed block under a whole block of 32 leaves the graph to that one; the newest block gets none', () => {
    const plan = pendingGroups(table, snapshotOf(32, 66, 100), () => false);
    const graphed = plan.build.filter((g) => g.graphed).map((g) => g.key);
    expect(graphed).toEqual(['t/shards/0/generations-32-63@v1']);
    expect(plan.build.map((g) => g.key)).toContain('t/shards/0/generations-64-66@v1');
  });
});

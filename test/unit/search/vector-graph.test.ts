/**
 * The graph a pending block is searched by (shared/search/vector-graph.ts): its distances
 * are Lance's for every metric, so its rows rank among the base's by one measure; it finds
 * the nearest rows; and its build leaves the event loop free.
 */
import { describe, expect, it } from 'vitest';
import { lanceDb, queryRows } from '../../../shared/base/lance-module.ts';
import { type GraphVectors, VectorGraph } from '../../../shared/search/vector-graph.ts';
import type { Metric } from '../../../shared/table/index-decl.ts';
import { seededRandom } from '../../support/random.ts';

function vectors(rows: number, dim: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: rows }, () => Float32Array.from({ length: dim }, () => random() * 2 - 1));
}

/** `rows` as a graph's input, each keyed by its index; a copy, since the build takes the buffers. */
function graphInput(rows: readonly Float32Array[]): GraphVectors {
  const dim = rows[0]!.length;
  const values = new Float32Array(rows.length * dim);
  for (const [i, row] of rows.entries()) values.set(row, i * dim);
  return { dim, values, keys: BigUint64Array.from(rows, (_, i) => BigInt(i)) };
}

function bruteForce(rows: readonly Float32Array[], query: Float32Array, k: number): number[] {
  const l2 = (row: Float32Array) => row.reduce((sum, x, i) => sum + (x - query[i]!) ** 2, 0);
  return rows
    .map((row, i) => ({ i, d: l2(row) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k)
    .map(({ i }) => i);
}

describe('the graph over a pending block', () => {
  it("answers Lance's own distance for l2, cosine and dot", async () => {
    const rows = vectors(300, 8, 1);
    const db = await lanceDb().connect('memory://');
    const table = await db.createTable(
      'rows',
      rows.map((vector, id) => ({ id, vector: [...vector] })),
    );
    const [query] = vectors(1, 8, 2);
    for (const metric of ['l2', 'cosine', 'dot'] as const satisfies readonly Metric[]) {
      const graph = await VectorGraph.build(graphInput(rows), metric);
      const found = graph.search(query!, 5);
      // Every row's distance by Lance, so the rows the graph finds are compared by key: the
      // graph is approximate (its build is multi-threaded), which rows it finds may vary.
      const lance = await queryRows(
        table
          .vectorSearch(query!)
          .distanceType(metric)
          .bypassVectorIndex()
          .select(['id', '_distance'])
          .limit(rows.length),
      );
      const lanceDistance = new Map<number, number>();
      for (const batch of lance) {
        const ids = batch.getChild('id')!.toArray() as BigInt64Array;
        const distances = batch.getChild('_distance')!.toArray() as Float32Array;
        for (const [i, id] of ids.entries()) lanceDistance.set(Number(id), distances[i]!);
      }
      expect(found.keys.length, metric).toBe(5);
      for (const [i, key] of found.keys.entries()) {
        expect(found.distances[i], `${metric} row ${key}`).toBeCloseTo(lanceDistance.get(Number(key))!, 4);
      }
    }
    db.close();
  });

  it('finds the nearest rows of a few thousand, nearest first', async () => {
    const rows = vectors(5_000, 16, 3);
    const graph = await VectorGraph.build(graphInput(rows), 'l2');
    let found = 0;
    for (const query of vectors(20, 16, 4)) {
      const answer = graph.search(query, 10);
      expect([...answer.distances]).toEqual([...answer.distances].sort((a, b) => a - b));
      const truth = new Set(bruteForce(rows, query, 10));
      found += [...answer.keys].filter((key) => truth.has(Number(key))).length;
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.95);
  });

  it('is built off the event loop: a timer keeps firing while it is built', async () => {
    const rows = vectors(20_000, 64, 5);
    let last = performance.now();
    let longestPause = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestPause = Math.max(longestPause, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    try {
      await VectorGraph.build(graphInput(rows), 'l2');
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // Built on this thread, the build would be one pause as long as itself.
    expect(took).toBeGreaterThan(400);
    expect(longestPause).toBeLessThan(took / 3);
  });
});

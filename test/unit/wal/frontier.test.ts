import { describe, expect, it } from 'vitest';
import { missingSeqs, planFrontier } from '../../../shared/wal/frontier.ts';

const present = (...seqs: number[]) => seqs.map((seq) => ({ seq, bytes: 10 }));

describe('WAL frontier (seal, docs/design.md, "Seal")', () => {
  it('runs through every present entry when there is no gap', () => {
    const plan = planFrontier({
      after: 3,
      present: present(4, 5, 6),
      inflightSince: new Map(),
      now: 0,
      holeTimeoutMs: 100,
    });
    expect(plan).toEqual({ frontier: 6, holes: [], retryAt: null });
  });

  it('stops before a missing seq whose writer is still within the hole timeout', () => {
    const plan = planFrontier({
      after: 0,
      present: present(1, 3, 4),
      inflightSince: new Map([[2, 1_000]]),
      now: 1_050,
      holeTimeoutMs: 100,
    });
    expect(plan).toEqual({ frontier: 1, holes: [], retryAt: 1_100 });
  });

  it('declares a hole when the in-flight mark is older than the hole timeout', () => {
    const plan = planFrontier({
      after: 0,
      present: present(1, 3),
      inflightSince: new Map([[2, 1_000]]),
      now: 1_100,
      holeTimeoutMs: 100,
    });
    expect(plan).toEqual({ frontier: 3, holes: [2], retryAt: null });
  });

  it('declares a hole at once when Redis has no mark for the missing seq', () => {
    const plan = planFrontier({
      after: 0,
      present: present(1, 4),
      inflightSince: new Map(),
      now: 0,
      holeTimeoutMs: 100,
    });
    expect(plan).toEqual({ frontier: 4, holes: [2, 3], retryAt: null });
  });

  it('never runs past the highest present entry (a tail seq may still be written)', () => {
    const plan = planFrontier({
      after: 7,
      present: [],
      inflightSince: new Map(),
      now: 0,
      holeTimeoutMs: 100,
    });
    expect(plan.frontier).toBe(7);
    expect(missingSeqs(7, [])).toEqual([]);
    expect(missingSeqs(0, present(2, 5))).toEqual([1, 3, 4]);
  });
});

import { describe, expect, it } from 'vitest';
import { LANCE_DEFAULT_NPROBES, pendingProbes, probedShare } from '../../../shared/search/probe-share.ts';

describe('the share of IVF partitions a search probes', () => {
  it('is every partition of a pending block when the base compares every row, so a flat search stays exact', () => {
    const share = probedShare(null, 5);
    expect(share).toBe(1);
    expect(pendingProbes(share, 78)).toBe(78);
  });

  it("is the base's nprobes over its partitions, taken by a pending block of its own partitions, rounded up", () => {
    const share = probedShare(250, 40);
    expect(share).toBeCloseTo(0.16);
    expect(pendingProbes(share, 20)).toBe(4);
    expect(pendingProbes(share, 5)).toBe(1);
  });

  it("is LanceDB's default probes over the base's partitions when the query does not say", () => {
    expect(probedShare(100, null)).toBeCloseTo(LANCE_DEFAULT_NPROBES / 100);
  });

  it('never exceeds every partition, and probes at least one', () => {
    expect(probedShare(10, 40)).toBe(1);
    expect(pendingProbes(1, 7)).toBe(7);
    expect(pendingProbes(0.001, 7)).toBe(1);
  });
});

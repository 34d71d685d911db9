import { describe, expect, it } from 'vitest';
import { cutGenerations } from '../../../shared/lsm/generation-cut.ts';

const entries = (n: number, bytes: number, rows: number) =>
  Array.from({ length: n }, (_, i) => ({ seq: i + 1, bytes, rows }));

describe('generation cut (seal)', () => {
  it('puts a short backlog into one generation numbered after the last', () => {
    const gens = cutGenerations({
      entries: entries(3, 10, 1),
      firstGeneration: 5,
      maxBytes: 100,
      maxRows: 100,
      sealedAt: 't',
    });
    expect(gens).toEqual([{ generation: 5, walFrom: 1, walTo: 3, walBytes: 30, walRows: 3, sealedAt: 't' }]);
  });

  it('cuts a long backlog into several generations, none over the byte limit', () => {
    const gens = cutGenerations({
      entries: entries(10, 40, 1),
      firstGeneration: 1,
      maxBytes: 100,
      maxRows: 1000,
      sealedAt: 't',
    });
    expect(gens.map((g) => [g.generation, g.walFrom, g.walTo])).toEqual([
      [1, 1, 2],
      [2, 3, 4],
      [3, 5, 6],
      [4, 7, 8],
      [5, 9, 10],
    ]);
    expect(gens.every((g) => g.walBytes <= 100)).toBe(true);
  });

  it('cuts by rows as well as bytes', () => {
    const gens = cutGenerations({
      entries: entries(6, 1, 50),
      firstGeneration: 1,
      maxBytes: 1e9,
      maxRows: 100,
      sealedAt: 't',
    });
    expect(gens.map((g) => g.walRows)).toEqual([100, 100, 100]);
  });

  it('gives an entry larger than the limit a generation of its own', () => {
    const gens = cutGenerations({
      entries: [
        { seq: 1, bytes: 10, rows: 1 },
        { seq: 2, bytes: 500, rows: 1 },
        { seq: 3, bytes: 10, rows: 1 },
      ],
      firstGeneration: 1,
      maxBytes: 100,
      maxRows: 100,
      sealedAt: 't',
    });
    expect(gens.map((g) => [g.walFrom, g.walTo])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('seals nothing when there is nothing to seal', () => {
    expect(
      cutGenerations({ entries: [], firstGeneration: 1, maxBytes: 1, maxRows: 1, sealedAt: 't' }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { cutGenerations, type SealableEntry } from '../../../shared/lsm/generation-cut.ts';
import { unpackMembers } from '../../../shared/lsm/generation-members.ts';

const entries = (n: number, bytes: number, rows: number) =>
  Array.from({ length: n }, (_, i) => ({ seq: i + 1, bytes, rows }));

describe('generation cut (seal)', () => {
  it('puts a short backlog into one generation numbered after the last', () => {
    const gens = cutGenerations({
      entries: entries(3, 10, 1),
      after: 0,
      through: 3,
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
      after: 0,
      through: 10,
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
      after: 0,
      through: 6,
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
      after: 0,
      through: 3,
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
      cutGenerations({
        entries: [],
        after: 4,
        through: 4,
        firstGeneration: 1,
        maxBytes: 1,
        maxRows: 1,
        sealedAt: 't',
      }),
    ).toEqual([]);
  });

  describe("in a table lane, from a shard's members only", () => {
    /** Members of one shard at seqs 12, 13, 17 and 20 of a lane sealed through 10. */
    const members: SealableEntry[] = [12, 13, 17, 20].map((seq, i) => ({
      seq,
      bytes: 40,
      rows: 4,
      section: { start: 100 * i, end: 100 * i + 40, schemaVersion: 1 + (i % 2) },
    }));

    it("tiles the range with no gap: other shards' seqs lie inside, the last ends at the frontier", () => {
      const gens = cutGenerations({
        entries: members,
        after: 10,
        through: 23,
        firstGeneration: 7,
        maxBytes: 80,
        maxRows: 1000,
        sealedAt: 't',
      });
      expect(gens.map((g) => [g.generation, g.walFrom, g.walTo, g.walBytes, g.walRows])).toEqual([
        [7, 11, 13, 80, 8],
        [8, 14, 23, 80, 8],
      ]);
    });

    it("keeps each member's section with its generation, and only members", () => {
      const gens = cutGenerations({
        entries: members,
        after: 10,
        through: 23,
        firstGeneration: 1,
        maxBytes: 80,
        maxRows: 1000,
        sealedAt: 't',
      });
      const unpacked = gens.map((g) => unpackMembers(g.walFrom - 1, g.members!));
      expect(unpacked).toEqual([
        [
          { seq: 12, start: 0, end: 40, rows: 4, schemaVersion: 1 },
          { seq: 13, start: 100, end: 140, rows: 4, schemaVersion: 2 },
        ],
        [
          { seq: 17, start: 200, end: 240, rows: 4, schemaVersion: 1 },
          { seq: 20, start: 300, end: 340, rows: 4, schemaVersion: 2 },
        ],
      ]);
    });

    it('caps the members of a generation', () => {
      const gens = cutGenerations({
        entries: members,
        after: 10,
        through: 20,
        firstGeneration: 1,
        maxBytes: 1e9,
        maxRows: 1e9,
        maxEntries: 3,
        sealedAt: 't',
      });
      expect(gens.map((g) => [g.walFrom, g.walTo])).toEqual([
        [11, 17],
        [18, 20],
      ]);
    });

    it("a shard's own lane gets no members", () => {
      const gens = cutGenerations({
        entries: entries(2, 1, 1),
        after: 0,
        through: 2,
        firstGeneration: 1,
        maxBytes: 10,
        maxRows: 10,
        sealedAt: 't',
      });
      expect(gens[0]!.members).toBeUndefined();
    });
  });
});

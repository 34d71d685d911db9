import { describe, expect, it } from 'vitest';
import { isSluiceError } from '../../../shared/errors.ts';
import { type GenerationMember, packMembers, unpackMembers } from '../../../shared/lsm/generation-members.ts';
import { seededRandom } from '../../support/random.ts';

function randomMembers(next: () => number, after: number): GenerationMember[] {
  const members: GenerationMember[] = [];
  let seq = after;
  const count = Math.floor(next() * 300);
  for (let i = 0; i < count; i++) {
    // Now and then a huge step or offset: varints past 32 bits must survive.
    const big = next() < 0.05 ? 2 ** 33 : 0;
    seq += 1 + Math.floor(next() * 50) + big;
    const start = Math.floor(next() * 5_000_000) + big;
    members.push({
      seq,
      start,
      end: start + Math.floor(next() * 200_000),
      rows: Math.floor(next() * 10_000),
      schemaVersion: 1 + Math.floor(next() * 4),
    });
  }
  return members;
}

describe("a table-lane generation's packed members", () => {
  it('unpack to what was packed, over random members', () => {
    const next = seededRandom(33);
    for (let run = 0; run < 200; run++) {
      const after = Math.floor(next() * 1e9);
      const members = randomMembers(next, after);
      expect(unpackMembers(after, packMembers(after, members))).toEqual(members);
    }
  });

  it('take about 8 bytes a member at realistic sizes', () => {
    const members = Array.from({ length: 256 }, (_, i) => ({
      seq: 1_000_000 + 3 * i,
      start: 1_000 + (i % 7) * 900,
      end: 1_900 + (i % 7) * 900,
      rows: 10,
      schemaVersion: 1,
    }));
    expect(packMembers(999_999, members).length).toBeLessThan(256 * 12);
  });

  it('refuse members out of order, at or below the seq before the generation', () => {
    const member = { seq: 5, start: 0, end: 1, rows: 1, schemaVersion: 1 };
    expect(() => packMembers(5, [member])).toThrow(RangeError);
    expect(() => packMembers(0, [member, member])).toThrow(RangeError);
  });

  it('say a truncated packing is corrupt', () => {
    const packed = packMembers(0, [{ seq: 2 ** 45, start: 0, end: 1, rows: 1, schemaVersion: 1 }]);
    const cut = Buffer.from(Buffer.from(packed, 'base64').subarray(0, 3)).toString('base64');
    try {
      unpackMembers(0, cut);
      expect.unreachable();
    } catch (err) {
      expect(isSluiceError(err, 'DATA_CORRUPT')).toBe(true);
    }
  });
});

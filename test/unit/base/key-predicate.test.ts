/** The Lance filter of a key-range scan: tuple comparison column by column, either bound open. */
import { describe, expect, it } from 'vitest';
import {
  keyLiteral,
  keysPredicates,
  rangePredicate,
  timestampLiteral,
} from '../../../shared/base/key-predicate.ts';

const one = [{ name: 'id', kind: 'int64' as const }];
const two = [
  { name: 'tenant', kind: 'utf8' as const },
  { name: 'n', kind: 'int32' as const },
];

describe('rangePredicate', () => {
  it('is null for the whole table, and one comparison per bound for a one-column key', () => {
    expect(rangePredicate(one, null, null)).toBeNull();
    expect(rangePredicate(one, [3n], null)).toBe('((`id` >= 3))');
    expect(rangePredicate(one, null, [9n])).toBe('((`id` < 9))');
    expect(rangePredicate(one, [3n], [9n])).toBe('((`id` >= 3)) AND ((`id` < 9))');
  });

  it('compares a composite key as a tuple: from inclusive, to exclusive, strings quoted', () => {
    expect(rangePredicate(two, ["o'k", 4], ['c', 1])).toBe(
      "((`tenant` > 'o''k') OR (`tenant` = 'o''k' AND `n` >= 4)) AND ((`tenant` < 'c') OR (`tenant` = 'c' AND `n` < 1))",
    );
  });
});

/** How deep parentheses nest in a filter: Lance refuses, then crashes on, deep nesting. */
function depth(filter: string): number {
  let max = 0;
  let open = 0;
  for (const c of filter.replace(/'(?:[^']|'')*'/g, "''")) {
    if (c === '(') max = Math.max(max, ++open);
    if (c === ')') open--;
  }
  return max;
}

describe('keysPredicates', () => {
  it('splits a one-column key into IN lists of at most 10,000 values', () => {
    const keys = Array.from({ length: 25_000 }, (_, i) => [BigInt(i)]);
    const filters = keysPredicates(one, keys);
    expect(filters.map((f) => f.split(', ').length)).toEqual([10_000, 10_000, 5_000]);
    expect(filters[2]!.endsWith('24999)')).toBe(true);
  });

  it('ORs composite keys as a balanced tree of at most 1,000 keys: nesting grows with the logarithm', () => {
    const keys = Array.from({ length: 2_500 }, (_, i) => [`t-${i}`, i]);
    const filters = keysPredicates(two, keys);
    expect(filters.map((f) => f.split(' OR ').length)).toEqual([1_000, 1_000, 500]);
    expect(Math.max(...filters.map(depth))).toBeLessThanOrEqual(12);
    expect(keysPredicates(two, [["o'k", 1]])).toEqual(["(`tenant` = 'o''k' AND `n` = 1)"]);
  });

  it('writes every int64 as a literal Lance parses as that int64, the smallest one included', () => {
    expect(keyLiteral(-(2n ** 63n))).toBe('(-9223372036854775807 - 1)');
    expect(keyLiteral(2n ** 63n - 1n)).toBe('9223372036854775807');
    expect(keyLiteral(-2147483648)).toBe('-2147483648');
    expect(keyLiteral("a'b")).toBe("'a''b'");
  });
});

describe('timestampLiteral', () => {
  it("is the column's own unit, so the comparison needs no cast of the column", () => {
    expect(timestampLiteral(1_767_268_800_000, 'ms')).toBe(
      "arrow_cast(1767268800000, 'Timestamp(Millisecond, None)')",
    );
    expect(timestampLiteral(1_767_268_800_000, 'us')).toBe(
      "arrow_cast(1767268800000000, 'Timestamp(Microsecond, None)')",
    );
    expect(timestampLiteral(-1, 'us')).toBe("arrow_cast(-1000, 'Timestamp(Microsecond, None)')");
  });
});

/** The Lance filter of a key-range scan: tuple comparison column by column, either bound open. */
import { describe, expect, it } from 'vitest';
import { rangePredicate } from '../../../shared/base/key-predicate.ts';

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

import { describe, expect, it } from 'vitest';
import { type AppendRecord, type AppendRow, DEFAULT_TAG, tagOf } from './appends.ts';
import { checkAppendCount, checkAppendRead, checkAppends } from './check-appends.ts';

/** An append of `rows` rows that ran from `startedAt` to `endedAt` and ended as `outcome`. */
function append(
  id: string,
  rows: number,
  [startedAt, endedAt]: [number, number],
  outcome: AppendRecord['outcome'] = 'acked',
  tagged = false,
): AppendRecord {
  const attempt =
    outcome === 'acked'
      ? { startedAt, endedAt, status: 200 }
      : outcome === 'rejected'
        ? { startedAt, endedAt, status: null, error: 'ECONNREFUSED' }
        : { startedAt, endedAt, status: 503, error: 'OVERLOADED' };
  return {
    id,
    rows,
    tagged,
    attempts: [attempt],
    outcome,
    startedAt,
    ackedAt: outcome === 'acked' ? endedAt : null,
  };
}

const rowsOf = (a: AppendRecord, tag: string | null = a.tagged ? tagOf(a.id) : DEFAULT_TAG): AppendRow[] =>
  Array.from({ length: a.rows }, (_, i) => ({ w: a.id, i, tag }));

const AFTER = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY, changedBy: 50 };

describe('the append-only table checks', () => {
  const acked = append('a0', 3, [0, 10]);
  const unsure = append('a1', 2, [20, 30], 'indeterminate');
  const refused = append('a2', 2, [40, 45], 'rejected');
  const tagged = append('a3', 4, [60, 70], 'acked', true);
  const history = [acked, unsure, refused, tagged];

  it('pass a final scan holding every acked append whole, an unsure one whole or not at all', () => {
    expect(checkAppendRead(history, [...rowsOf(acked), ...rowsOf(tagged)], AFTER)).toEqual([]);
    expect(checkAppendRead(history, [...rowsOf(acked), ...rowsOf(unsure), ...rowsOf(tagged)], AFTER)).toEqual(
      [],
    );
  });

  it('name an acked append absent, a torn one, a duplicated row and a phantom', () => {
    expect(checkAppendRead(history, rowsOf(tagged), AFTER)).toEqual([
      'lost: append a0 of 3 rows, acked, absent',
    ]);
    const torn = [...rowsOf(acked), rowsOf(unsure)[0]!, ...rowsOf(tagged)];
    expect(checkAppendRead(history, torn, AFTER)).toEqual(['torn: append a1 has 1 of its 2 rows']);
    const twice = [...rowsOf(acked), rowsOf(acked)[1]!, ...rowsOf(tagged)];
    expect(checkAppendRead(history, twice, AFTER)).toEqual(['duplicated: row a0/1 read more than once']);
    const phantoms = [
      ...rowsOf(acked),
      ...rowsOf(tagged),
      ...rowsOf(refused),
      { w: 'a0', i: 3, tag: DEFAULT_TAG },
    ];
    expect(checkAppendRead(history, phantoms, AFTER)).toHaveLength(3);
  });

  it('hold each row to its tag: the append’s own if it named one, else the default; absent only before the change', () => {
    const untaggedTagged = [...rowsOf(acked), ...rowsOf(tagged, DEFAULT_TAG)];
    expect(checkAppendRead(history, untaggedTagged, AFTER)).toHaveLength(4);
    const nulls = [...rowsOf(acked, null)];
    expect(checkAppendRead([acked], nulls, { from: 15, to: 40, changedBy: 50 })).toEqual([]);
    expect(checkAppendRead([acked], nulls, { from: 55, to: 80, changedBy: 50 })).toHaveLength(3);
  });

  it('during the run: an append acked after the read began, or begun after it ended, may be absent', () => {
    expect(checkAppendRead(history, [], { from: 5, to: 8, changedBy: 50 })).toEqual([]);
    expect(checkAppendRead(history, rowsOf(acked), { from: 12, to: 15, changedBy: 50 })).toEqual([]);
    expect(checkAppendRead(history, rowsOf(tagged), { from: 12, to: 15, changedBy: 50 })).toEqual([
      'phantom: row a3/0, which no append that may have landed wrote',
      'phantom: row a3/1, which no append that may have landed wrote',
      'phantom: row a3/2, which no append that may have landed wrote',
      'phantom: row a3/3, which no append that may have landed wrote',
      'lost: append a0 of 3 rows, acked, absent',
    ]);
  });

  it('hold a count between the rows that must be there and those that may', () => {
    const span = { from: 35, to: 65, changedBy: 50 };
    expect(checkAppendCount(history, 3, span)).toEqual([]);
    expect(checkAppendCount(history, 9, span)).toEqual([]);
    expect(checkAppendCount(history, 2, span)).toEqual(['count 2, but between 3 and 9 rows were live']);
    expect(checkAppendCount(history, 10, span)).toEqual(['count 10, but between 3 and 9 rows were live']);
  });

  it('count a valid append refused with a 400 as a violation, and sum every read', () => {
    const bad = {
      ...append('a4', 1, [80, 90], 'rejected'),
      attempts: [{ startedAt: 80, endedAt: 90, status: 400, error: 'INVALID_ROWS' }],
    };
    const verdict = checkAppends(
      [...history, bad],
      [{ kind: 'count', startedAt: 35, endedAt: 65, rows: 3, seen: [] }],
      50,
    );
    expect(verdict).toEqual({
      checked: 1,
      violations: 1,
      problems: ['refused: append a4 answered 400 INVALID_ROWS'],
    });
  });
});

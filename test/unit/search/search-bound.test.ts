import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SearchBound } from '../../../shared/search/search-bound.ts';

const nearer = (a: number, b: number) => a < b;

describe('SearchBound', () => {
  it('decides only once every side has answered its first ask, then counts k rows strictly before the last', async () => {
    const bound = new SearchBound(3, nearer, 2);
    bound.heard(0, [0.1, 0.2]);
    let decided: boolean | null = null;
    const covers = bound.covers(0.5).then((answer) => {
      decided = answer;
    });
    await sleep(10);
    expect(decided).toBeNull();
    bound.heard(1, [0.3, 0.5]);
    await covers;
    // 0.1, 0.2 and 0.3 rank before 0.5; 0.5 ties it and counts for nothing.
    expect(decided).toBe(true);
    expect(await bound.covers(0.3)).toBe(false);
  });

  it('a side that failed or returned without asking holds nobody up', async () => {
    const bound = new SearchBound(1, nearer, 3);
    bound.heard(0, [0.1]);
    bound.left(1);
    const covers = bound.covers(0.2);
    bound.left(2);
    expect(await covers).toBe(true);
  });

  it('a later ask of a side replaces its earlier candidates; text scores rank higher first', async () => {
    const bound = new SearchBound(2, (a, b) => a > b, 1);
    bound.heard(0, [9]);
    expect(await bound.covers(5)).toBe(false);
    bound.heard(0, [9, 8, 7]);
    expect(await bound.covers(7)).toBe(true);
  });
});

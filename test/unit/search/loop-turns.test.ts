import { describe, expect, it } from 'vitest';
import { loopTurns } from '../../../shared/search/loop-turns.ts';

describe('loopTurns', () => {
  it('gives calls made together a turn each, in order, so other callbacks run between them', async () => {
    const turn = loopTurns();
    const order: string[] = [];
    const first = turn().then(() => {
      order.push('first');
      setImmediate(() => order.push('queued by the first'));
    });
    const second = turn().then(() => order.push('second'));
    const third = turn().then(() => order.push('third'));
    await Promise.all([first, second, third]);
    expect(order).toEqual(['first', 'queued by the first', 'second', 'third']);
  });

  it("two takers' turns do not wait for each other", async () => {
    const [mine, theirs] = [loopTurns(), loopTurns()];
    const order: string[] = [];
    const turns = [
      mine().then(() => order.push('mine 1')),
      mine().then(() => order.push('mine 2')),
      theirs().then(() => order.push('theirs 1')),
    ];
    await Promise.all(turns);
    expect(order.indexOf('theirs 1')).toBeLessThan(order.indexOf('mine 2'));
  });
});

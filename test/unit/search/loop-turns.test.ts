import { describe, expect, it } from 'vitest';
import { ownTurn } from '../../../shared/search/loop-turns.ts';

describe('ownTurn', () => {
  it('gives callers queued together a turn each, in order, so other callbacks run between them', async () => {
    const order: string[] = [];
    const first = ownTurn().then(() => {
      order.push('first');
      setImmediate(() => order.push('queued by the first'));
    });
    const second = ownTurn().then(() => order.push('second'));
    const third = ownTurn().then(() => order.push('third'));
    await Promise.all([first, second, third]);
    expect(order).toEqual(['first', 'queued by the first', 'second', 'third']);
  });
});

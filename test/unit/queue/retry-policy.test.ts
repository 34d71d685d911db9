import { describe, expect, it } from 'vitest';
import { attemptsFor, backoffDelay } from '../../../queue/retry-policy.ts';

const defaults = { maxRetries: 8, retryBaseMs: 50, retryMaxMs: 30_000 };

describe('flush retry policy (I6)', () => {
  it('doubles from the base delay, jittered within the upper half', () => {
    expect(backoffDelay(1, defaults, () => 0)).toBe(25);
    expect(backoffDelay(1, defaults, () => 1)).toBe(50);
    expect(backoffDelay(4, defaults, () => 1)).toBe(400);
    expect(backoffDelay(4, defaults, () => 0)).toBe(200);
  });

  it('never waits longer than the cap', () => {
    expect(backoffDelay(30, defaults, () => 1)).toBe(30_000);
    expect(backoffDelay(30, { ...defaults, retryMaxMs: 1_000 }, () => 0.5)).toBe(750);
  });

  it('gives up after about 12 s with the defaults', () => {
    const total = Array.from({ length: defaults.maxRetries }, (_, i) =>
      backoffDelay(i + 1, defaults, () => 1),
    ).reduce((a, b) => a + b);
    expect(total).toBe(12_750);
    expect(attemptsFor(defaults)).toBe(9);
  });
});

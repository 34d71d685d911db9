import { describe, expect, it } from 'vitest';
import { cooldownSeconds, isCoolingDown } from '../../../shared/scheduler/cooldown.ts';

const settings = { cooldownAfterFailures: 3, cooldownBaseSeconds: 10, cooldownMaxSeconds: 60 };

describe('I15 cooldown arithmetic', () => {
  it('no cooldown before the threshold, the base at it, doubling after it, capped at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((failures) => cooldownSeconds(failures, settings))).toEqual([
      0, 0, 10, 20, 40, 60, 60,
    ]);
  });

  it('a threshold of 0 turns cooldowns off however many failures there are', () => {
    expect(cooldownSeconds(1_000, { ...settings, cooldownAfterFailures: 0 })).toBe(0);
  });

  it('a failure count far past the threshold stays at the maximum instead of overflowing', () => {
    expect(cooldownSeconds(10_000, settings)).toBe(60);
  });

  it('is cooling down strictly before the end of the cooldown, not at it or after', () => {
    const until = '2026-01-01T00:00:10.000Z';
    const end = Date.parse(until);
    expect(isCoolingDown(until, end - 1)).toBe(true);
    expect(isCoolingDown(until, end)).toBe(false);
    expect(isCoolingDown(until, end + 1)).toBe(false);
    expect(isCoolingDown(null, 0)).toBe(false);
  });
});

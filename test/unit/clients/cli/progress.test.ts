import { describe, expect, it } from 'vitest';
import { formatEta } from '../../../../clients/typescript/src/cli/progress.ts';

describe('the load progress bar', () => {
  it('writes the ETA as seconds, minutes and seconds, or hours and minutes', () => {
    expect([0, 0.4, 42, 59.6, 60, 184, 3599, 3600, 7500, 90_061].map(formatEta)).toEqual([
      '0s',
      '0s',
      '42s',
      '1m00s',
      '1m00s',
      '3m04s',
      '59m59s',
      '1h00m',
      '2h05m',
      '25h01m',
    ]);
  });
});

/** When the client tries a request again, and how long it waits first. */
import { describe, expect, it } from 'vitest';
import { SluiceApiError } from '../../../clients/typescript/src/errors.ts';
import { isRetryable, type RetryPolicy, retryDelayMs } from '../../../clients/typescript/src/retry.ts';

const policy: RetryPolicy = { attempts: 8, baseMs: 100, maxMs: 2000 };
const error = (code: SluiceApiError['code'], status: number) => new SluiceApiError(code, code, status);

describe('client retries', () => {
  it('waits the Retry-After seconds the server asked for, within the cap', () => {
    expect(retryDelayMs(policy, 0, '1')).toBe(1000);
    expect(retryDelayMs(policy, 5, '0')).toBe(0);
    expect(retryDelayMs(policy, 0, '60')).toBe(2000);
  });

  it('backs off exponentially with jitter when no Retry-After came', () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      for (let i = 0; i < 50; i++) {
        const ms = retryDelayMs(policy, attempt, attempt % 2 ? null : 'soon');
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.min(policy.maxMs, policy.baseMs * 2 ** attempt));
      }
    }
  });

  it('repeats any request the server refused before writing, and waits for an operator on a poisoned shard', () => {
    expect(isRetryable(error('BACKPRESSURE', 429), false)).toBe(true);
    expect(isRetryable(error('WRITE_ABANDONED', 503), false)).toBe(true);
    expect(isRetryable(error('STORE_UNAVAILABLE', 503), false)).toBe(true);
    expect(isRetryable(error('SHARD_POISONED', 503), true)).toBe(false);
    expect(isRetryable(error('INVALID_ROWS', 400), true)).toBe(false);
    expect(isRetryable(error('INTERNAL', 500), true)).toBe(false);
  });

  it('repeats after a lost connection or a timeout only what is safe to repeat', () => {
    expect(isRetryable(error('NETWORK_ERROR', 0), true)).toBe(true);
    expect(isRetryable(error('NETWORK_ERROR', 0), false)).toBe(false);
    expect(isRetryable(error('TIMEOUT', 504), true)).toBe(true);
    expect(isRetryable(error('TIMEOUT', 504), false)).toBe(false);
  });
});

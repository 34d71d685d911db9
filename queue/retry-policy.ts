/**
 * I6: exponential backoff with jitter, capped. The delay before retry n (n >= 1) is
 * min(cap, base * 2^(n-1)), of which the upper half is random ("equal jitter"), so
 * retries of many shards that failed together spread out without ever retrying at once.
 * With the defaults (8 retries, 50 ms, 30 s cap) a flush gives up after about 10–13 s.
 */
export interface RetrySettings {
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export const BACKOFF_TYPE = 'sluice-exponential-jitter';

export function backoffDelay(
  attemptsMade: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** BullMQ counts the first run as an attempt. */
export function attemptsFor(settings: RetrySettings): number {
  return settings.maxRetries + 1;
}

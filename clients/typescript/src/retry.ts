/**
 * When a request is tried again. The server refused a 429 or a retryable 503 before
 * writing anything (or the write was abandoned), so any request may repeat after one. A
 * lost connection or a 504 leaves a write's outcome unknown: only requests that are safe to
 * repeat (reads, and writes with an Idempotency-Key) try again then.
 */
import type { SluiceApiError } from './errors.ts';

export interface RetryPolicy {
  /** Tries in all, the first one included. */
  attempts: number;
  /** First backoff; doubled per try, with full jitter. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseMs: 100, maxMs: 10_000 };

/** 503 codes that say "try again"; SHARD_POISONED waits for an operator instead. */
const RETRYABLE_503 = new Set([
  'STORE_CONFLICT',
  'STORE_UNAVAILABLE',
  'REDIS_UNAVAILABLE',
  'WRITE_ABANDONED',
  'READ_AMPLIFICATION',
  'ABORTED',
]);

export function isRetryable(error: SluiceApiError, repeatable: boolean): boolean {
  if (error.status === 429) return true;
  if (error.status === 503) return RETRYABLE_503.has(error.code);
  if (error.code === 'NETWORK_ERROR' || error.status === 504) return repeatable;
  return false;
}

/** How long to wait before try `attempt + 1` (0-based `attempt`). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxMs);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(Math.random() * ceiling);
}

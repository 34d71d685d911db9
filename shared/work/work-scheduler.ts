/**
 * How the domain asks for background work without knowing the queue technology: the job
 * layer implements it with BullMQ. Every request is idempotent — asking twice for the same
 * work yields one job — so callers ask whenever in doubt.
 */
import type { WorkStatus } from './work-status.ts';

export interface SealRequest {
  /** Run no earlier than this many ms from now (debounce); 0 = as soon as possible. */
  delayMs: number;
}

/** A flush that follows one that failed after it made progress (I6). */
export interface FlushRetry {
  /** Run no earlier than this many ms from now: the backoff before the failed generation's next try. */
  delayMs: number;
  /** Tries of the failed generation already spent, taken off the new job's budget. */
  triesSpent: number;
}

export interface WorkScheduler {
  requestSeal(table: string, shard: number, request: SealRequest): Promise<void>;
  requestFlush(table: string, shard: number, retry?: FlushRetry): Promise<void>;
  /**
   * A job in the merge lane of `table` (a merge, then an optimize when due); `manual` marks an
   * operator's request, which no cooldown gates (I15). Returns the id of the job that will run it.
   */
  requestMerge(table: string, options: { manual: boolean }): Promise<string>;
  /** The merge-lane job `id` of `table`, as requested; null when there is no such job (or it is long gone). */
  workStatus(table: string, id: string): Promise<WorkStatus | null>;
}

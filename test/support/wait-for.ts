import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitForOptions {
  /** What is awaited, for the error: "the ready log line", "generation 3 committed". */
  message: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `condition` until it returns a truthy value, and returns that value. A condition
 * that throws counts as not yet; its last error becomes the cause of the timeout error.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { message, timeoutMs = 10_000, intervalMs = 25 }: WaitForOptions,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}${reason}`, {
        cause: lastError,
      });
    }
    await sleep(intervalMs);
  }
}

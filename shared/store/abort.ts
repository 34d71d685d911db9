/**
 * Store operations honour an AbortSignal: a caller that has given up (a timed-out write,
 * a cancelled job) must not start work it will not wait for.
 */
import { SluiceError } from '../errors.ts';

export function abortedError(op: string, cause?: unknown): SluiceError {
  return new SluiceError('ABORTED', `object store ${op} aborted`, { op }, { cause });
}

export function throwIfAborted(signal: AbortSignal | undefined, op: string): void {
  if (signal?.aborted) throw abortedError(op, signal.reason);
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/**
 * Runs `call` with a signal that aborts after `ms`, and clears its timer when the call ends.
 * `AbortSignal.timeout` cannot be cleared: every call would leave a timer that fires long
 * after it answered and builds a TimeoutError for a signal nobody listens to any more, which
 * cost a WAL put about as much CPU as its own link.
 */
export async function withDeadline<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the operation timed out after ${ms} ms`, 'TimeoutError')),
    ms,
  );
  // As AbortSignal.timeout's: the deadline alone keeps no process alive.
  timer.unref();
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

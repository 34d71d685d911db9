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

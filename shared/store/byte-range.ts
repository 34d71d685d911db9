import { SluiceError } from '../errors.ts';
import type { ByteRange } from './object-store.ts';

export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  const startOk = Number.isSafeInteger(start) && start >= 0;
  const endOk = end === undefined || (Number.isSafeInteger(end) && end >= start);
  if (!startOk || !endOk) {
    throw new SluiceError('INVALID_REQUEST', `invalid byte range [${start}, ${end ?? 'end'})`, {
      start,
      end,
    });
  }
}

/** The part of `range` inside an object of `size` bytes; empty when the range starts past the end. */
export function clampRange(range: ByteRange | undefined, size: number): { start: number; end: number } {
  const start = Math.min(range?.start ?? 0, size);
  const end = Math.min(range?.end ?? size, size);
  return { start, end: Math.max(start, end) };
}

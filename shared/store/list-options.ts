import { SluiceError } from '../errors.ts';
import type { ListOptions } from './object-store.ts';

/** The page size a listing asked for, capped at what the store can return at once. */
export function pageSizeOf(options: ListOptions, max: number): number {
  const pageSize = options.pageSize ?? max;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new SluiceError('INVALID_REQUEST', `invalid list page size ${pageSize}`, { pageSize });
  }
  return Math.min(pageSize, max);
}

/** Query parameters shared by the paginated routes: `limit` and `after`. */
import { SluiceError } from '../shared/errors.ts';
import type { Ctx } from './request.ts';

export function limitQuery(c: Ctx, max: number, fallback: number): number {
  const text = c.req.query('limit');
  if (text === undefined) return fallback;
  const limit = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= max)) {
    throw new SluiceError('INVALID_REQUEST', `limit must be an integer from 1 to ${max}`, {
      limit: text.slice(0, 32),
      max,
    });
  }
  return limit;
}

/** The opaque cursor of the previous page; an empty `after=` means the first page. */
export function afterQuery(c: Ctx): string | null {
  return c.req.query('after') || null;
}

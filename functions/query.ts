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

/** `?columns=a,b`: the columns to answer, in that order; absent, every column. */
export function columnsQuery(c: Ctx): string[] | null {
  const text = c.req.query('columns');
  if (text === undefined) return null;
  return text === '' ? [] : text.split(',').map((name) => name.trim());
}

/**
 * A key as a query parameter is JSON — a scalar, or an array for a composite key; text that
 * is not JSON is a string.
 */
export function keyText(text: string): unknown {
  // A bare integer beyond 2^53 would lose digits as a JSON number; int64 keys take it as text.
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `?from=&to=`: a key range, from inclusive, to exclusive; each bound optional. */
export function rangeQuery(c: Ctx): { from?: unknown; to?: unknown } {
  const from = c.req.query('from');
  const to = c.req.query('to');
  return {
    ...(from === undefined ? {} : { from: keyText(from) }),
    ...(to === undefined ? {} : { to: keyText(to) }),
  };
}

/**
 * I17: every paginated listing (tables, failure ledgers, dead letters) answers at most
 * MAX_PAGE items a page, and a limit outside 1..MAX_PAGE is refused, not clamped
 * (docs/design.md, "I17 Inspection is read-only").
 */
import { SluiceError } from './errors.ts';

export const MAX_PAGE = 256;

/** `limit` as asked, MAX_PAGE when not asked; INVALID_REQUEST unless a whole number from 1 to MAX_PAGE. */
export function pageLimit(limit: number | undefined): number {
  const asked = limit ?? MAX_PAGE;
  if (!Number.isInteger(asked) || asked < 1 || asked > MAX_PAGE) {
    throw new SluiceError('INVALID_REQUEST', `limit must be an integer from 1 to ${MAX_PAGE}`, {
      limit: asked,
    });
  }
  return asked;
}

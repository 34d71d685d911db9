/**
 * The opaque `next` of a ledger page: base64url of `{"of", "after"}`, where `of` names the
 * listing it belongs to and `after` is the last index member returned. Listings run in
 * member order, so the next page is "members after this one": an entry added or removed
 * meanwhile never makes another one repeat or go missing. I17: anything but exactly this
 * shape, for this listing, is 400 INVALID_CURSOR.
 */
import { decodeOpaqueCursor, encodeOpaqueCursor, invalidCursor } from '../opaque-cursor.ts';

export function encodeLedgerCursor(of: string, after: string): string {
  return encodeOpaqueCursor({ of, after });
}

const MESSAGE = 'the cursor is malformed or belongs to another listing';

/** The member to continue after; `isMember` checks that it could be one of this listing's. */
export function decodeLedgerCursor(text: string, of: string, isMember: (member: string) => boolean): string {
  const { of: listing, after } = decodeOpaqueCursor(text, ['of', 'after'], MESSAGE);
  if (listing !== of || typeof after !== 'string' || !isMember(after)) throw invalidCursor(text, MESSAGE);
  return after;
}

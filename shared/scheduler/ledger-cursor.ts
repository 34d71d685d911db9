/**
 * The opaque `next` of a ledger page: base64url of `{"of", "after"}`, where `of` names the
 * listing it belongs to and `after` is the last index member returned. Listings run in
 * member order, so the next page is "members after this one": an entry added or removed
 * meanwhile never makes another one repeat or go missing. I17: anything but exactly this
 * shape, for this listing, is 400 INVALID_CURSOR.
 */
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';

export function encodeLedgerCursor(of: string, after: string): string {
  return Buffer.from(JSON.stringify({ of, after })).toString('base64url');
}

/** The member to continue after; `isMember` checks that it could be one of this listing's. */
export function decodeLedgerCursor(text: string, of: string, isMember: (member: string) => boolean): string {
  const invalid = () =>
    new SluiceError('INVALID_CURSOR', 'the cursor is malformed or belongs to another listing', {
      cursor: text.slice(0, 64),
    });
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).length !== 2 || parsed.of !== of) throw invalid();
  const { after } = parsed;
  if (typeof after !== 'string' || !isMember(after)) throw invalid();
  return after;
}

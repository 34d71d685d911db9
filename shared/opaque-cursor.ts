/**
 * The opaque `next` cursor of a paginated listing: base64url of a small JSON object. A
 * cursor that is not exactly such an object, with exactly the expected fields, is refused
 * with 400 INVALID_CURSOR (I17), never guessed at.
 */
import { SluiceError } from './errors.ts';
import { isPlainObject } from './plain-object.ts';

export function encodeOpaqueCursor(fields: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

/** The cursor's fields, or INVALID_CURSOR unless it holds exactly `names`; `message` says which listing. */
export function decodeOpaqueCursor(
  text: string,
  names: readonly string[],
  message: string,
): Record<string, unknown> {
  const invalid = invalidCursor(text, message);
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!isPlainObject(parsed)) throw invalid;
  const keys = Object.keys(parsed);
  if (keys.length !== names.length || !names.every((name) => keys.includes(name))) throw invalid;
  return parsed;
}

export function invalidCursor(text: string, message: string): SluiceError {
  return new SluiceError('INVALID_CURSOR', message, { cursor: text.slice(0, 64) });
}

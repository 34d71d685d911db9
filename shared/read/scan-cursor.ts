/**
 * The opaque `after` cursor of a scan: the encoded key of the last row returned, in
 * base64url. A cursor that does not decode to a valid key of the table is refused.
 */
import type { KeyCodec } from '../arrow/key-codec.ts';
import { SluiceError } from '../errors.ts';

const PREFIX = 'k1.';

export function encodeScanCursor(key: Uint8Array): string {
  return PREFIX + Buffer.from(key).toString('base64url');
}

export function decodeScanCursor(codec: KeyCodec, cursor: string): Uint8Array {
  const invalid = () =>
    new SluiceError('INVALID_CURSOR', 'the scan cursor is malformed', { cursor: cursor.slice(0, 64) });
  if (!cursor.startsWith(PREFIX)) throw invalid();
  const body = cursor.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw invalid();
  const key = new Uint8Array(Buffer.from(body, 'base64url'));
  try {
    if (Buffer.compare(codec.encode(codec.decode(key)), key) !== 0) throw invalid();
  } catch {
    throw invalid();
  }
  return key;
}

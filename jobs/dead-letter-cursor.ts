/**
 * The opaque `next` of a dead-letter page: base64url of `{"at", "id"}`, where `at` is the
 * position (oldest first) right after the last letter returned and `id` is that letter.
 * Only a cursor of exactly that shape is accepted (I17: a malformed one is 400).
 */
import { SluiceError } from '../shared/errors.ts';
import { isPlainObject } from '../shared/plain-object.ts';

export interface DeadLetterCursor {
  at: number;
  id: string;
}

/** BullMQ refuses `:` in a job id, and every dead-letter id is `{queue}-{jobId}`. */
const ID = /^[a-z][a-z-]*-[A-Za-z0-9._-]{1,200}$/;

export function isDeadLetterIdShape(id: string): boolean {
  return ID.test(id);
}

export function encodeDeadLetterCursor(cursor: DeadLetterCursor): string {
  return Buffer.from(JSON.stringify({ at: cursor.at, id: cursor.id })).toString('base64url');
}

export function decodeDeadLetterCursor(text: string): DeadLetterCursor {
  const invalid = () =>
    new SluiceError('INVALID_CURSOR', 'the dead-letter cursor is malformed', { cursor: text.slice(0, 64) });
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(text)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!isPlainObject(parsed) || Object.keys(parsed).length !== 2) throw invalid();
  const { at, id } = parsed;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 1) throw invalid();
  if (typeof id !== 'string' || !isDeadLetterIdShape(id)) throw invalid();
  return { at, id };
}

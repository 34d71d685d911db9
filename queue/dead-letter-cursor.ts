/**
 * The opaque `next` of a dead-letter page: base64url of `{"at", "id", "failedAt"}` — the
 * position (oldest first) right after the last letter returned, that letter's id and its
 * failure time (ms), which places the next page even after that letter was retried.
 * Only a cursor of exactly that shape is accepted (I17: a malformed one is 400).
 */
import { decodeOpaqueCursor, encodeOpaqueCursor, invalidCursor } from '../shared/opaque-cursor.ts';

export interface DeadLetterCursor {
  at: number;
  id: string;
  failedAt: number;
}

/** BullMQ refuses `:` in a job id, and every dead-letter id is `{queue}-{jobId}`. */
const ID = /^[a-z][a-z-]*-[A-Za-z0-9._-]{1,200}$/;

export function isDeadLetterIdShape(id: string): boolean {
  return ID.test(id);
}

export function encodeDeadLetterCursor(cursor: DeadLetterCursor): string {
  return encodeOpaqueCursor({ at: cursor.at, id: cursor.id, failedAt: cursor.failedAt });
}

const MESSAGE = 'the dead-letter cursor is malformed';

export function decodeDeadLetterCursor(text: string): DeadLetterCursor {
  const invalid = () => invalidCursor(text, MESSAGE);
  const parsed = decodeOpaqueCursor(text, ['at', 'id', 'failedAt'], MESSAGE);
  const { at, id, failedAt } = parsed;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 1) throw invalid();
  if (typeof id !== 'string' || !isDeadLetterIdShape(id)) throw invalid();
  if (typeof failedAt !== 'number' || !Number.isSafeInteger(failedAt) || failedAt < 0) throw invalid();
  return { at, id, failedAt };
}

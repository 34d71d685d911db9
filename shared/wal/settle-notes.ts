/**
 * Decides, at the store, whether an idempotent write whose writer went away landed (I20,
 * docs/design.md "Idempotent appends"). Each put it noted is decided as a seal decides a
 * hole: a tombstone put-if-absent at its seq. Landed, that seq never holds an entry, and a
 * late put there fails (`WRITE_ABANDONED`); refused, the object there is read, and the
 * noted entry's own id means the write landed. At most one noted put holds the write: its
 * writer moves to another seq only when an entry of someone else holds the one it had.
 */
import { isSluiceError, SluiceError } from '../errors.ts';
import { withDeadline } from '../store/abort.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import { encodeHole, entryIdOf, type NotedPut } from './wal-entry.ts';

/** The noted put that landed, or null when none did (and none ever will). */
export async function settleNotedPuts(
  store: ObjectStore,
  table: string,
  notes: readonly NotedPut[],
  putTimeoutMs: number,
): Promise<NotedPut | null> {
  for (const note of notes) {
    const key = walKey(table, note.shard, note.seq);
    try {
      await withDeadline(putTimeoutMs, (signal) => store.putIfAbsent(key, encodeHole(note.seq), { signal }));
      continue;
    } catch (err) {
      if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
    }
    const existing = await store.get(key);
    if (existing === null) {
      throw new SluiceError(
        'IDEMPOTENCY_UNSETTLED',
        'the first attempt of this request can no longer be decided: its WAL entry was collected; read the table for its rows, and send it again under a new Idempotency-Key if they are missing',
        { table, shard: note.shard, seq: note.seq },
      );
    }
    if (entryIdOf(existing.body, note.seq) === note.entry) return note;
  }
  return null;
}

/**
 * Deciding a WAL seq at the store, as a seal decides a hole: a tombstone put-if-absent at
 * its key. Landed, that seq never holds an entry, and a late put there fails
 * (`WRITE_ABANDONED`); refused, the object there is read, and an entry's own id (unique to
 * its bytes) says whose it is. A writer settles its own put of unknown outcome so
 * (docs/design.md, "Write"), and a retry the puts its first writer noted (I20, "Idempotent
 * appends").
 */
import { isSluiceError, SluiceError } from '../errors.ts';
import { withDeadline } from '../store/abort.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import { encodeHole, entryIdOf, type NotedPut } from './wal-entry.ts';

/**
 * Whether the entry `entry` holds the key of `seq`: `landed`; `tombstoned` when it never will
 * (a tombstone, this one or another's, or another entry holds it); `gone` when the key was
 * taken and is empty again (collected). A store that does not answer throws.
 */
export async function decideSeq(
  store: ObjectStore,
  key: string,
  seq: number,
  entry: string,
  timeoutMs: number,
): Promise<'landed' | 'tombstoned' | 'gone'> {
  try {
    await withDeadline(timeoutMs, (signal) => store.putIfAbsent(key, encodeHole(seq), { signal }));
    return 'tombstoned';
  } catch (err) {
    if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
  }
  const existing = await store.get(key);
  if (existing === null) return 'gone';
  return entryIdOf(existing.body, seq) === entry ? 'landed' : 'tombstoned';
}

/**
 * The noted put of an idempotent write whose writer went away that landed, or null when
 * none did (and none ever will). At most one holds the write: its writer moves to another
 * seq only when an entry of someone else holds the one it had.
 */
export async function settleNotedPuts(
  store: ObjectStore,
  table: string,
  notes: readonly NotedPut[],
  putTimeoutMs: number,
): Promise<NotedPut | null> {
  for (const note of notes) {
    const decided = await decideSeq(
      store,
      walKey(table, note.shard, note.seq),
      note.seq,
      note.entry,
      putTimeoutMs,
    );
    if (decided === 'landed') return note;
    if (decided === 'gone') {
      throw new SluiceError(
        'IDEMPOTENCY_UNSETTLED',
        'the first attempt of this request can no longer be decided: its WAL entry was collected; read the table for its rows, and send it again under a new Idempotency-Key if they are missing',
        { table, shard: note.shard, seq: note.seq },
      );
    }
  }
  return null;
}

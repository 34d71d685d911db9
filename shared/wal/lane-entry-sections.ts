/**
 * Where each shard's rows are in a table lane's landed objects (docs/table-wal-lane.md, §2
 * "Where sections are known"): from Redis, which the writers' completions told, else from the
 * entry's own footer by a range GET of its last bytes. Seals, stats and the lane's sync ask.
 */
import pLimit from 'p-limit';
import { SluiceError } from '../errors.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { EntrySections } from '../redis/lane-sections.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey } from '../table/paths.ts';
import type { WalObject } from './frontier.ts';
import { readEntryFooter } from './wal-sections.ts';

export interface LaneEntrySectionsDeps {
  store: ObjectStore;
  laneSealCounters: LaneSealCounters;
}

/** Footers read at once, for entries whose sections Redis lacks. */
const FOOTER_READS = 32;

/** The sections of each of `objects`, landed lane objects (null for a hole). */
export async function laneEntrySections(
  deps: LaneEntrySectionsDeps,
  table: string,
  objects: readonly WalObject[],
  signal?: AbortSignal,
): Promise<Array<{ seq: number; entry: EntrySections | null }>> {
  const known = await deps.laneSealCounters.sections(
    table,
    objects.map((o) => o.seq),
  );
  // Side by side: on S3 each footer is a request's latency, and the newest entries'
  // completions have often not reached Redis yet when they are listed.
  const limit = pLimit(FOOTER_READS);
  return Promise.all(
    objects.map(async (object) => ({
      seq: object.seq,
      entry: known.get(object.seq) ?? (await limit(() => footerSections(deps.store, table, object, signal))),
    })),
  );
}

/** The sections an entry's footer names; null for a hole. */
async function footerSections(
  store: ObjectStore,
  table: string,
  object: WalObject,
  signal?: AbortSignal,
): Promise<EntrySections | null> {
  const key = tableWalKey(table, object.seq);
  const footer = await readEntryFooter(store, key, object.bytes, { signal });
  // Listed above a sealed range, where nothing is deleted: gone means lost.
  if (!footer)
    throw new SluiceError('DATA_MISSING', `WAL entry ${key} is missing`, { table, seq: object.seq });
  if (footer.kind === 'hole') return null;
  if (!footer.sections) {
    throw new SluiceError('DATA_CORRUPT', `WAL entry ${key} in a table lane has no sections`, {
      table,
      seq: object.seq,
    });
  }
  return { sections: footer.sections, schemaVersion: footer.schemaVersion };
}

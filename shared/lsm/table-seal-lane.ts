/**
 * A shard's seal over its table's WAL lane (docs/table-wal-lane.md, §4): the lane holds every
 * shard's entries, so the listing, the frontier and the holes are the table's, and of each
 * entry the seal takes only this shard's section. Where the sections are comes from Redis,
 * which the writers' completions told; an entry whose completion Redis lacks (not yet sent, or
 * Redis lost it) has them in its own footer, read by a range GET of its last bytes.
 */
import pLimit from 'p-limit';
import { SluiceError } from '../errors.ts';
import type { InflightMarks } from '../redis/inflight-marks.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { EntrySections } from '../redis/lane-sections.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { listLaneAfter, tableLane, type WalObject } from '../wal/frontier.ts';
import { readEntryFooter } from '../wal/wal-sections.ts';
import type { SealableEntry } from './generation-cut.ts';
import { MAX_GENERATION_MEMBERS } from './generation-members.ts';
import type { SealLane } from './seal-lane.ts';

export interface TableLaneDeps {
  store: ObjectStore;
  inflightMarks: InflightMarks;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
}

/** Footers read at once, for entries whose sections Redis lacks. */
const FOOTER_READS = 32;

export function tableSealLane(deps: TableLaneDeps, table: TableDef, shard: number): SealLane {
  const name = table.name;
  return {
    maxEntries: MAX_GENERATION_MEMBERS,
    listAfter: (after, signal) => listLaneAfter(deps.store, tableLane(name), after, signal),
    inflightSince: (seqs) => deps.inflightMarks.laneSince(name, seqs),
    key: (seq) => tableWalKey(name, seq),
    sealable: (objects, signal) => membersOf(deps, name, shard, objects, signal),
    recordSeal: (sealed) =>
      deps.laneSealCounters.recordSeal(name, shard, {
        bytes: sealed.entries.reduce((sum, e) => sum + e.bytes, 0),
        sealedCount: sealed.sealedCount,
        manifestVersion: sealed.manifestVersion,
        sealedThrough: sealed.sealedThrough,
        shardCount: table.shards,
      }),
    endSeal: (sealedThrough, options) => deps.laneAllocation.endSeal(name, shard, sealedThrough, options),
    disarmSeal: () => deps.laneAllocation.disarmSeal(name, shard),
  };
}

/** The entries among `objects` with a section for `shard`, each as that section. */
async function membersOf(
  deps: TableLaneDeps,
  table: string,
  shard: number,
  objects: WalObject[],
  signal?: AbortSignal,
): Promise<SealableEntry[]> {
  const all = await laneEntrySections(deps, table, objects, signal);
  return all.flatMap(({ seq, entry }) => {
    const section = entry?.sections.find((s) => s.shard === shard);
    if (!entry || !section) return [];
    const { start, end, rows } = section;
    return [{ seq, bytes: end - start, rows, section: { start, end, schemaVersion: entry.schemaVersion } }];
  });
}

/**
 * The sections of each of `objects`, landed lane objects (null for a hole): from Redis, which
 * the writers' completions told, else from the entry's footer.
 */
export async function laneEntrySections(
  deps: Pick<TableLaneDeps, 'store' | 'laneSealCounters'>,
  table: string,
  objects: readonly WalObject[],
  signal?: AbortSignal,
): Promise<Array<{ seq: number; entry: EntrySections | null }>> {
  const known = await deps.laneSealCounters.sections(
    table,
    objects.map((o) => o.seq),
  );
  // Side by side: on S3 each footer is a request's latency, and the newest entries'
  // completions have often not reached Redis yet when the seal lists them.
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
  // Listed above the sealed range, where nothing is ever deleted: gone means lost.
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

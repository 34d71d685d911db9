/**
 * A shard's seal over its table's WAL lane (docs/table-wal-lane.md, §4): the lane holds every
 * shard's entries, so the listing, the frontier and the holes are the table's, and of each
 * entry the seal takes only this shard's section (`laneEntrySections`: from Redis, else from
 * the entry's footer).
 */
import type { InflightMarks } from '../redis/inflight-marks.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { PoisonLookup } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { listLaneAfter, tableLane, type WalObject } from '../wal/frontier.ts';
import { laneEntrySections } from '../wal/lane-entry-sections.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import type { SealableEntry } from './generation-cut.ts';
import { MAX_GENERATION_MEMBERS } from './generation-members.ts';
import type { SealLane } from './seal-lane.ts';

export interface TableLaneDeps {
  store: ObjectStore;
  inflightMarks: InflightMarks;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
  poisonCache: PoisonLookup;
  scheduler: WorkScheduler;
}

/**
 * Seqs one seal plans over at most: a shard far behind the lane (poisoned and reopened, or
 * idle) catches up in seals of bounded listings, Redis reads and manifests, one after another.
 */
export const MAX_PLAN_SEQS = 10_000;
/**
 * A shard this far behind the one that just sealed is asked for a seal: a shard no write
 * touches gets no seal request of its own, and its sealed range holds back GC and every
 * read's listing of the lane.
 */
const IDLE_LAG_SEQS = 1_000;

export function tableSealLane(deps: TableLaneDeps, table: TableDef, shard: number): SealLane {
  const name = table.name;
  return {
    maxEntries: MAX_GENERATION_MEMBERS,
    listAfter: (after, signal) =>
      listLaneAfter(deps.store, tableLane(name), after, signal, after + MAX_PLAN_SEQS),
    bounded: (after, listed) => (listed.at(-1)?.seq ?? 0) >= after + MAX_PLAN_SEQS,
    sealOthers: (sealedThrough) => sealLagging(deps, table, shard, sealedThrough),
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

async function sealLagging(deps: TableLaneDeps, table: TableDef, shard: number, sealedThrough: number) {
  const recorded = await deps.laneSealCounters.sealedThroughs(table.name);
  for (let other = 0; other < table.shards; other++) {
    if (other === shard || (recorded.get(other) ?? 0) > sealedThrough - IDLE_LAG_SEQS) continue;
    // A poisoned shard lags until its reopen, which asks for its seal itself.
    if (await deps.poisonCache.cachedPoison(table.name, other)) continue;
    await deps.scheduler.requestSeal(table.name, other, { delayMs: 0 });
  }
}

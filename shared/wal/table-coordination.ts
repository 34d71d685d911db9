/**
 * The writer's side of a table lane (docs/table-wal-lane.md, §3): a group's writes of every
 * shard they touch in one entry, its sections one per shard; one allocation that checks every
 * touched shard's poison and backpressure; completions that tell Redis where each shard's
 * section is. A refused shard refuses the writes that touch it, whole.
 */
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { LaneCompletion } from '../redis/lane-sections.ts';
import { ShardPoisonedError } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import type { TableDrops } from '../table/table-drops.ts';
import {
  backpressureError,
  type LaneAnswer,
  type LaneCoordination,
  type LaneWrite,
} from './lane-coordination.ts';
import { syncLane } from './lane-sync.ts';
import type { ManifestReader } from './manifest-reader.ts';
import type { WalWrite } from './wal-entry.ts';
import { encodeSectionedEntry } from './wal-sections.ts';

export interface TableCoordinationDeps {
  store: ObjectStore;
  manifests: ManifestReader;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
  drops: TableDrops;
}

export function tableCoordination(
  deps: TableCoordinationDeps,
  table: TableDef,
): LaneCoordination<LaneCompletion> {
  const name = table.name;
  return {
    key: (seq) => tableWalKey(name, seq),
    // Any shard's sealed range is a floor for the whole lane (docs/table-wal-lane.md, "Floor").
    floorShard: (shards) => shards[0] ?? 0,
    encode(schema, writes, entryId) {
      const { body, sections, schemaVersion } = encodeSectionedEntry(schema, byShard(writes), entryId);
      const rows = sections.reduce((sum, s) => sum + s.rows, 0);
      return { body, rows, completion: (seq) => ({ seq, sections, schemaVersion }) };
    },
    async allocate(shards, limits, floor, extras) {
      const allocation = await deps.laneAllocation.allocate(name, shards, limits, floor, extras);
      const counts = { armed: allocation.armedShards, unsealedBytes: allocation.unsealedBytes };
      return { ...counts, ...answerOf(name, allocation) };
    },
    async complete(completions, sealDelayMs) {
      const done = await deps.laneAllocation.complete(name, completions, sealDelayMs);
      return { armed: done.armedShards, unsealedBytes: done.unsealedBytes };
    },
    abandon: (seq) => deps.laneAllocation.abandon(name, seq),
    fillDropFlag: () => deps.drops.fillLaneFlag(name),
    sync: async () => {
      await syncLane(deps, table);
    },
  };
}

type Allocation = Awaited<ReturnType<LaneAllocation['allocate']>>;

function answerOf(table: string, allocation: Allocation): LaneAnswer {
  switch (allocation.kind) {
    case 'ok':
      return { kind: 'ok', seq: allocation.seq };
    case 'poisoned':
      return {
        kind: 'refused',
        errors: new Map(
          [...allocation.byShard].map(([shard, poison]) => [
            shard,
            new ShardPoisonedError(table, shard, poison),
          ]),
        ),
      };
    case 'backpressure':
      return {
        kind: 'refused',
        errors: new Map([
          [allocation.shard, backpressureError(table, allocation.shard, allocation.reason, allocation.value)],
        ]),
      };
    default:
      return { kind: allocation.kind };
  }
}

/** A group's writes gathered by shard, each shard's in arrival order. */
function byShard(writes: readonly LaneWrite[]): Map<number, WalWrite[]> {
  const out = new Map<number, WalWrite[]>();
  for (const write of writes) {
    for (const [shard, part] of write) {
      const parts = out.get(shard);
      if (parts) parts.push(part);
      else out.set(shard, [part]);
    }
  }
  return out;
}

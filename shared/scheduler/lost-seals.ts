/**
 * Lost seal work comes back within `scheduler.lostSealSeconds` of a shard's last write, not
 * at the next full sweep: every shard the writers watched and that went quiet since is asked
 * for a seal when Redis has handed out a seq the manifest has not sealed through. That seq
 * is an entry whose seal request was lost, or one whose write failed: the seal settles both
 * (it seals the entry, or writes the hole once the hole timeout has passed). A table lane's
 * seq is the table's (docs/table-wal-lane.md, §4): a shard sealed short of it is asked for a
 * seal whoever that seq's rows are for, and the seal advances it past other shards' entries.
 */
import { isSluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ShardManifestStore } from '../lsm/shard-manifest.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { SealWatch } from '../redis/seal-watch.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { TableCatalog } from '../table/catalog.ts';
import type { TableDef } from '../table/table-def.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';

export interface LostSealDeps {
  sealWatch: SealWatch;
  seqAllocation: SeqAllocation;
  laneAllocation: LaneAllocation;
  catalog: Pick<TableCatalog, 'get'>;
  manifests: ShardManifestStore;
  scheduler: WorkScheduler;
  log: Logger;
}

/** Returns how many seals it asked for. A shard it could not look at is due again next tick. */
export async function recoverLostSeals(deps: LostSealDeps, now: number): Promise<number> {
  let requested = 0;
  // A table's definition read once a tick, however many of its shards are due.
  const defs = new Map<string, Promise<TableDef | null>>();
  const defOf = (table: string) => {
    const def = defs.get(table) ?? liveDef(deps, table);
    defs.set(table, def);
    return def;
  };
  for (const { table, shard } of await deps.sealWatch.takeDue(now)) {
    try {
      if (await sealOutstanding(deps, await defOf(table), table, shard)) {
        await deps.scheduler.requestSeal(table, shard, { delayMs: 0 });
        requested++;
      }
    } catch (err) {
      deps.log.warn({ err, table, shard }, 'could not look for lost seal work; trying again next tick');
      await deps.sealWatch.watch(table, shard, now);
    }
  }
  return requested;
}

/** The table's definition; null once it is dropped, when nothing of it is sealed any more. */
function liveDef(deps: LostSealDeps, table: string): Promise<TableDef | null> {
  return deps.catalog.get(table).catch((err: unknown) => {
    if (isSluiceError(err, 'TABLE_NOT_FOUND')) return null;
    throw err;
  });
}

async function sealOutstanding(
  deps: LostSealDeps,
  def: TableDef | null,
  table: string,
  shard: number,
): Promise<boolean> {
  if (!def) return false;
  const allocated =
    def.walLane === 'table'
      ? await deps.laneAllocation.allocatedThrough(table)
      : await deps.seqAllocation.allocatedThrough(table, shard);
  // No counter: Redis lost the shard's state, and the sweep that follows rebuilds it.
  if (allocated === null) return false;
  const { sealedThrough } = await deps.manifests.read(table, shard);
  return allocated > sealedThrough;
}

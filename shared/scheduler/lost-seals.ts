/**
 * Lost seal work comes back within `scheduler.lostSealSeconds` of a shard's last write, not
 * at the next full sweep: every shard the writers watched and that went quiet since is asked
 * for a seal when Redis has handed out a seq the manifest has not sealed through. That seq
 * is an entry whose seal request was lost, or one whose write failed: the seal settles both
 * (it seals the entry, or writes the hole once the hole timeout has passed).
 */
import type { Logger } from '../log.ts';
import type { ShardManifestStore } from '../lsm/shard-manifest.ts';
import type { SealWatch } from '../redis/seal-watch.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';

export interface LostSealDeps {
  sealWatch: SealWatch;
  seqAllocation: SeqAllocation;
  manifests: ShardManifestStore;
  scheduler: WorkScheduler;
  log: Logger;
}

/** Returns how many seals it asked for. A shard it could not look at is due again next tick. */
export async function recoverLostSeals(deps: LostSealDeps, now: number): Promise<number> {
  let requested = 0;
  for (const { table, shard } of await deps.sealWatch.takeDue(now)) {
    try {
      if (await sealOutstanding(deps, table, shard)) {
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

async function sealOutstanding(deps: LostSealDeps, table: string, shard: number): Promise<boolean> {
  const allocated = await deps.seqAllocation.allocatedThrough(table, shard);
  // No counter: Redis lost the shard's state, and the sweep that follows rebuilds it.
  if (allocated === null) return false;
  const { sealedThrough } = await deps.manifests.read(table, shard);
  return allocated > sealedThrough;
}

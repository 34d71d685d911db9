/**
 * An operator's retry of a flush that was fail-stopped (its dead letter): the flush is
 * asked for again, refused while the shard is still poisoned, since the flush would fail
 * at once (I7); reopen the shard first (I8).
 */
import { SluiceError } from '../errors.ts';
import { shardPoison } from '../shard-poison.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import type { PoisonDeps } from './poison.ts';

export interface FlushRetryDeps extends PoisonDeps {
  scheduler: WorkScheduler;
}

/** `letter` names what is retried, in the refusal's details. */
export async function retryFailedFlush(
  deps: FlushRetryDeps,
  target: { table: string; shard: number },
  letter: string,
): Promise<void> {
  const { table, shard } = target;
  const poison = await shardPoison(deps.poisonCache, await deps.manifests.read(table, shard));
  if (poison) {
    throw new SluiceError(
      'SHARD_STILL_POISONED',
      `shard ${shard} of table ${table} is still poisoned: reopen it before retrying its dead letters`,
      { id: letter, table, shard, poison },
    );
  }
  await deps.scheduler.requestFlush(table, shard);
}

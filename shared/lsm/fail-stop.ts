/**
 * The fail-stop of I6 and I7 (docs/design.md, "I6 Bounded retry, then fail-stop"): a flush
 * that cannot succeed poisons its shard, durably when the store allows, and then its
 * failure is recorded (the job layer's dead letter). Nothing is poisoned when the failed
 * generation turned out committed by another run (I11): the shard stays open and there is
 * nothing to record.
 */
import type { SluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { shardPoison } from '../shard-poison.ts';
import { type PoisonDeps, poison } from './poison.ts';

export interface FailStopDeps extends PoisonDeps {
  log: Logger;
}

export interface FlushFailure {
  error: SluiceError;
  jobId: string;
}

/** True when the shard was poisoned and `record` ran. */
export async function failStop(
  deps: FailStopDeps,
  target: { table: string; shard: number },
  failure: FlushFailure & { generation: number | null },
  record: () => Promise<void>,
): Promise<boolean> {
  const { table, shard } = target;
  const poisoned = await poison(deps, target, {
    code: failure.error.code,
    generation: failure.generation,
    cause: failure.error.message,
    jobId: failure.jobId,
  });
  if (!poisoned.poisoned) return false;
  if (!poisoned.durable) {
    deps.log.error(
      { err: poisoned.error, table, shard },
      'poison recorded in Redis only: the store refused it',
    );
  }
  await record();
  return true;
}

/**
 * A flush failed for good where its processor never saw it (BullMQ failed a job that
 * stalled too often): the fail-stop applies to the lowest generation still sealed, read
 * again from the manifest; with none left, or the shard poisoned already, there is nothing
 * to stop.
 */
export async function failStopOutside(
  deps: FailStopDeps,
  target: { table: string; shard: number },
  failure: FlushFailure,
  record: () => Promise<void>,
): Promise<boolean> {
  const manifest = await deps.manifests.read(target.table, target.shard);
  const pending = manifest.sealed[0];
  if (!pending || (await shardPoison(deps.poisonCache, manifest))) return false;
  return failStop(deps, target, { ...failure, generation: pending.generation }, record);
}

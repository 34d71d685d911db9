/**
 * I7, a poisoned shard fails fast everywhere: the poison record, the error that carries it
 * and the check. The shard manifest holds the durable record; the Redis copy is checked
 * too because it is written first, while the store may still be refusing the manifest
 * commit that makes the poison durable. Kept below every layer that needs it, so the WAL,
 * the Redis poison cache and the jobs share one definition without reaching into the LSM.
 */
import { type ErrorCode, SluiceError } from './errors.ts';

export interface PoisonRecord {
  code: ErrorCode;
  generation: number | null;
  cause: string;
  at: string;
  jobId?: string;
}

/** A shard as its manifest describes it: its durable poison, if any. */
export interface DurablePoison {
  table: string;
  shard: number;
  poison: PoisonRecord | null;
}

/** Where a poison not yet durable is found (`PoisonCache`, the Redis copy). */
export interface PoisonLookup {
  cachedPoison(table: string, shard: number): Promise<PoisonRecord | null>;
}

export class ShardPoisonedError extends SluiceError {
  constructor(
    table: string,
    shard: number,
    readonly poison: PoisonRecord,
  ) {
    super('SHARD_POISONED', `shard ${shard} of table ${table} is poisoned: ${poison.cause}`, {
      table,
      shard,
      poison,
    });
  }
}

/** Refuses a change to a shard whose manifest is poisoned. */
export function assertNotPoisoned(shard: DurablePoison): void {
  if (shard.poison) throw new ShardPoisonedError(shard.table, shard.shard, shard.poison);
}

/** The shard's poison, durable or only cached so far, or null when it is open. */
export async function shardPoison(cache: PoisonLookup, shard: DurablePoison): Promise<PoisonRecord | null> {
  return shard.poison ?? (await cache.cachedPoison(shard.table, shard.shard));
}

export async function assertShardOpen(cache: PoisonLookup, shard: DurablePoison): Promise<void> {
  const poison = await shardPoison(cache, shard);
  if (poison) throw new ShardPoisonedError(shard.table, shard.shard, poison);
}

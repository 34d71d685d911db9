/**
 * A shard's poison record cached in Redis with the manifest version it was read from (I7),
 * so a write fails fast without reading the store, and the index that counts poisoned
 * shards across every process (docs/design.md, "Redis keys and queues").
 */
import type { PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { runLuaCommand } from './lua-commands.ts';
import { CACHE_POISON, SYNC_POISON } from './shard-commands.ts';
import { type ShardKeys, shardKeys } from './shard-keys.ts';

export class PoisonCache {
  /**
   * SET of `{shard}/{table}` whose poison key may be set, for counting poisoned shards
   * without a SCAN. Added to before a poison is cached and removed from after it is
   * cleared, so it may name a shard that is not poisoned but never misses one that is.
   */
  private readonly poisonedIndex: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.poisonedIndex = `${prefix}:{poisoned}:shards`;
  }

  private keys(table: string, shard: number): ShardKeys {
    return shardKeys(this.prefix, table, shard);
  }

  /** Lists the shard in the index; called before anything caches a poison for it. */
  async index(table: string, shard: number): Promise<void> {
    await this.redis.sadd(this.poisonedIndex, `${shard}/${table}`);
  }

  /**
   * Caches the shard's poison state as of manifest version `manifestVersion` (null: the
   * manifest could not be read, keep the version Redis has). A state from a newer version
   * is left alone; returns whether this one was applied.
   */
  async cachePoison(
    table: string,
    shard: number,
    poison: PoisonRecord | null,
    manifestVersion: number | null,
  ): Promise<boolean> {
    if (poison) await this.index(table, shard);
    const applied = await runLuaCommand(this.redis, CACHE_POISON, this.keys(table, shard), [
      manifestVersion ?? '',
      poison ? JSON.stringify(poison) : '',
    ]);
    if (applied === 1 && !poison) await this.redis.srem(this.poisonedIndex, `${shard}/${table}`);
    return applied === 1;
  }

  /**
   * The shard's poison state as its manifest of `manifestVersion` has it, as a sync of its
   * lane sets it: only over a state from an older version, so that neither a reopen made
   * since nor a poison held only in Redis (raised on this version) is undone. A table lane's
   * sync (`LaneAllocation.sync`) keeps this copy, which reads check, in line with its own.
   */
  async syncPoison(
    table: string,
    shard: number,
    poison: PoisonRecord | null,
    manifestVersion: number,
  ): Promise<void> {
    if (poison) await this.index(table, shard);
    await runLuaCommand(this.redis, SYNC_POISON, this.keys(table, shard), [
      manifestVersion,
      poison ? JSON.stringify(poison) : '',
    ]);
  }

  /** Shards whose poison is cached, across every process on this Redis namespace. */
  async poisonedCount(): Promise<number> {
    const members = await this.redis.smembers(this.poisonedIndex);
    const held = await Promise.all(
      members.map((member) => {
        const slash = member.indexOf('/');
        const table = member.slice(slash + 1);
        return this.redis.exists(this.keys(table, Number(member.slice(0, slash))).poison);
      }),
    );
    return held.filter((exists) => exists === 1).length;
  }

  async cachedPoison(table: string, shard: number): Promise<PoisonRecord | null> {
    const value = await this.redis.get(this.keys(table, shard).poison);
    return value ? (JSON.parse(value) as PoisonRecord) : null;
  }
}

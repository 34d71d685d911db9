/**
 * The poison records of a table lane's shards cached in Redis, each with the manifest
 * version it was read from (I7), in the lane's slot so that the allocation refuses a write
 * touching a poisoned shard in its one script (docs/table-wal-lane.md, §4 "Poison"); and
 * the index that counts them across every process, as `PoisonCache` does for shard lanes.
 */
import type { PoisonLookup, PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { LANE_CACHE_POISON } from './lane-commands.ts';
import { type LaneKeys, laneKeys } from './lane-keys.ts';
import { runLuaCommand } from './lua-commands.ts';

export class LanePoisonCache implements PoisonLookup {
  /**
   * SET of `{shard}/{table}` whose lane poison may be set, for counting poisoned shards
   * without a SCAN. Added to before a poison is cached and removed from after it is
   * cleared, so it may name a shard that is not poisoned but never misses one that is.
   */
  private readonly poisonedIndex: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.poisonedIndex = `${prefix}:{poisoned}:lane-shards`;
  }

  private keys(table: string): LaneKeys {
    return laneKeys(this.prefix, table);
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
    const applied = await runLuaCommand(this.redis, LANE_CACHE_POISON, this.keys(table), [
      shard,
      manifestVersion ?? '',
      poison ? JSON.stringify(poison) : '',
    ]);
    if (applied === 1 && !poison) await this.redis.srem(this.poisonedIndex, `${shard}/${table}`);
    return applied === 1;
  }

  /** Lane shards whose poison is cached, across every process on this Redis namespace. */
  async poisonedCount(): Promise<number> {
    const members = await this.redis.smembers(this.poisonedIndex);
    const held = await Promise.all(
      members.map((member) => {
        const slash = member.indexOf('/');
        return this.redis.hexists(this.keys(member.slice(slash + 1)).poison, member.slice(0, slash));
      }),
    );
    return held.filter((exists) => exists === 1).length;
  }

  async cachedPoison(table: string, shard: number): Promise<PoisonRecord | null> {
    const value = await this.redis.hget(this.keys(table).poison, String(shard));
    return value ? (JSON.parse(value) as PoisonRecord) : null;
  }
}

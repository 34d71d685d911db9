/**
 * The poison records of a table lane's shards cached in Redis, each with the manifest
 * version it was read from (I7), in the lane's slot so that the allocation refuses a write
 * touching a poisoned shard in its one script (docs/table-wal-lane.md, §4 "Poison"). Every
 * poison is cached in the shard's own keys too (`PoisonCache`), whose index counts them.
 */
import type { PoisonLookup, PoisonRecord } from '../shard-poison.ts';
import type { RedisClient } from './connection.ts';
import { LANE_CACHE_POISON } from './lane-commands.ts';
import { type LaneKeys, laneKeys } from './lane-keys.ts';
import { runLuaCommand } from './lua-commands.ts';

export class LanePoisonCache implements PoisonLookup {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private keys(table: string): LaneKeys {
    return laneKeys(this.prefix, table);
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
    const applied = await runLuaCommand(this.redis, LANE_CACHE_POISON, this.keys(table), [
      shard,
      manifestVersion ?? '',
      poison ? JSON.stringify(poison) : '',
    ]);
    return applied === 1;
  }

  async cachedPoison(table: string, shard: number): Promise<PoisonRecord | null> {
    const value = await this.redis.hget(this.keys(table).poison, String(shard));
    return value ? (JSON.parse(value) as PoisonRecord) : null;
  }
}

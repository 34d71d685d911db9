/**
 * Dropping a table. The drop is a marker, `tables/{t}/dropped.json` (the truth), mirrored
 * in Redis (`{prefix}:{drop/{t}}`, "1" or "0") so that every process, whatever table
 * definitions it has cached, refuses the table from its next request on. Redis answers
 * unless it has no value — never asked, or lost with Redis — and then the store does, and
 * its answer is cached with SET NX; the drop writes the store first and then sets Redis
 * unconditionally, so a cache fill racing it cannot hide it. Each shard holds a copy of the
 * flag in its own hash slot (`ShardKeys.dropped`), and so does the table's WAL lane
 * (`LaneKeys.dropped`), filled and set by the same rules, which the WAL allocation reads: a
 * write learns of a drop without a Redis call of its own.
 *
 * The data stays until the GC grace period has passed since the drop, for readers still
 * using it; then the purge deletes every object under the table's prefix, the definition
 * last, and the table's Redis keys. The marker stays for good and keeps the name taken: a
 * new table under the old name would write objects at the old paths, which any process's
 * read cache may still hold, decoded, from the old table.
 */

import { SluiceError } from '../errors.ts';
import type { RedisClient } from '../redis/connection.ts';
import { laneKeyList, laneKeys } from '../redis/lane-keys.ts';
import { shardKeyList, shardKeys } from '../redis/shard-keys.ts';
import { deleteAll } from '../store/delete-all.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableConfigKey, tableDroppedKey, tablePrefix } from './paths.ts';
import type { TableDef } from './table-def.ts';

export interface TableDropsDeps {
  redis: RedisClient;
  prefix: string;
  store: ObjectStore;
}

export interface DroppedTable {
  name: string;
  droppedAt: string;
  /** When the purge may delete its data: the drop plus the GC grace period. */
  purgeAfter: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class TableDrops {
  constructor(private readonly deps: TableDropsDeps) {}

  /** Marks `table` dropped; TABLE_NOT_FOUND when it already is. */
  async drop(table: TableDef, graceMs: number, now = new Date()): Promise<DroppedTable> {
    const droppedAt = now.toISOString();
    const body = encoder.encode(JSON.stringify({ table: table.name, droppedAt }));
    try {
      await this.deps.store.putIfAbsent(tableDroppedKey(table.name), body);
    } catch (err) {
      if (!(err instanceof SluiceError && err.code === 'PRECONDITION_FAILED')) throw err;
      // An earlier drop may have died before it told Redis.
      await this.reassert(table);
      throw notFound(table.name);
    }
    await this.reassert(table);
    return { name: table.name, droppedAt, purgeAfter: new Date(now.getTime() + graceMs).toISOString() };
  }

  async isDropped(table: string, signal?: AbortSignal): Promise<boolean> {
    const key = this.redisKey(table);
    const cached = await this.deps.redis.get(key);
    if (cached !== null) return cached === '1';
    const dropped = (await this.droppedAt(table, signal)) !== null;
    await this.deps.redis.set(key, dropped ? '1' : '0', 'NX');
    return dropped;
  }

  /**
   * Fills one shard's copy of the flag from the store when Redis has none (first write, or
   * Redis lost it), and the table's flag with it, as `isDropped` would; never overwrites
   * one a drop set.
   */
  async fillShardFlag(table: string, shard: number, signal?: AbortSignal): Promise<void> {
    await this.fillFlag(table, shardKeys(this.deps.prefix, table, shard).dropped, signal);
  }

  /** As `fillShardFlag`, for the copy the table's WAL lane holds. */
  async fillLaneFlag(table: string, signal?: AbortSignal): Promise<void> {
    await this.fillFlag(table, laneKeys(this.deps.prefix, table).dropped, signal);
  }

  private async fillFlag(table: string, copy: string, signal?: AbortSignal): Promise<void> {
    const value = (await this.droppedAt(table, signal)) !== null ? '1' : '0';
    const { redis } = this.deps;
    await Promise.all([redis.set(copy, value, 'NX'), redis.set(this.redisKey(table), value, 'NX')]);
  }

  /** When the store says `table` was dropped, or null. */
  async droppedAt(table: string, signal?: AbortSignal): Promise<Date | null> {
    const object = await this.deps.store.get(tableDroppedKey(table), { signal });
    if (!object) return null;
    try {
      const at = new Date(
        (JSON.parse(decoder.decode(object.body)) as { droppedAt?: string }).droppedAt ?? '',
      );
      // A damaged marker still hides the table; its purge then waits a full grace period from now.
      return Number.isNaN(at.getTime()) ? new Date() : at;
    } catch {
      return new Date();
    }
  }

  /**
   * Deletes a dropped table's data once `graceMs` has passed since the drop; true when it
   * did. Safe to repeat: an interrupted purge deletes the rest next time.
   */
  async purgeIfDue(table: string, shards: number, now: number, graceMs: number): Promise<boolean> {
    const at = await this.droppedAt(table);
    if (at === null || now - at.getTime() < graceMs) return false;
    const last = new Set([tableConfigKey(table), tableDroppedKey(table)]);
    const keys: string[] = [];
    for await (const page of this.deps.store.list(tablePrefix(table))) {
      for (const { key } of page) if (!last.has(key)) keys.push(key);
    }
    await deleteAll(this.deps.store, keys);
    for (let shard = 0; shard < shards; shard++) {
      await this.deps.redis.del(...shardKeyList(shardKeys(this.deps.prefix, table, shard)));
    }
    await this.deps.redis.del(...laneKeyList(laneKeys(this.deps.prefix, table)));
    await this.deps.store.delete(tableConfigKey(table));
    return true;
  }

  /**
   * Redis learns of the drop: the table's flag and every copy of it. The sampler's
   * sweep says it again for every dropped table, so a drop that died between its marker and
   * these flags, or a Redis restored from before the drop, refuses writes within a sweep.
   */
  async reassert(table: TableDef): Promise<void> {
    const { redis, prefix } = this.deps;
    await Promise.all([
      redis.set(this.redisKey(table.name), '1'),
      redis.set(laneKeys(prefix, table.name).dropped, '1'),
      ...Array.from({ length: table.shards }, (_, shard) =>
        redis.set(shardKeys(prefix, table.name, shard).dropped, '1'),
      ),
    ]);
  }

  private redisKey(table: string): string {
    return `${this.deps.prefix}:{drop/${table}}`;
  }
}

export function notFound(table: string): SluiceError {
  return new SluiceError('TABLE_NOT_FOUND', `table "${table}" does not exist`, { table });
}

/**
 * Redis keys of one shard. All of them share one hash tag, `{table/shard}`, so the Lua
 * scripts that touch several of them run on one node of a Redis Cluster.
 */
export interface ShardKeys {
  /** Highest seq allocated; its absence means Redis has not been told this shard's state. */
  seq: string;
  /** ZSET seq → allocation time (ms) of writes whose WAL entry may not have landed yet. */
  inflight: string;
  /** HASH seq → rows in that WAL entry, so a seal can cut by rows without reading entries. */
  walRows: string;
  /** Bytes of WAL written past the last seal (I18). */
  unsealedBytes: string;
  /** Sealed generations not yet flushed (I18). */
  sealedCount: string;
  /** Manifest version `sealedCount` was taken from: an older one never overwrites a newer one. */
  sealedVersion: string;
  /** JSON poison record cached from the shard manifest (I7). */
  poison: string;
  /**
   * Manifest version the cached poison state (present or cleared) was taken from, so a sync
   * that read an older manifest never brings back a poison a reopen already cleared.
   */
  poisonVersion: string;
  /**
   * Set (with an expiry) by the allocation that finds no seal pending since the last seal
   * began; that writer requests the seal, every other one knows a seal will come.
   */
  sealArmed: string;
  /**
   * This shard's copy of the table's drop flag, "1" or "0", so the allocation refuses a
   * dropped table without a Redis call of its own; absent until a writer filled it from the
   * store. The drop sets it on every shard after writing its marker (docs/design.md, "Write").
   */
  dropped: string;
}

export function shardKeys(prefix: string, table: string, shard: number): ShardKeys {
  const base = `${prefix}:{${table}/${shard}}`;
  return {
    seq: `${base}:seq`,
    inflight: `${base}:inflight`,
    walRows: `${base}:wal-rows`,
    unsealedBytes: `${base}:unsealed-bytes`,
    sealedCount: `${base}:sealed-count`,
    sealedVersion: `${base}:sealed-version`,
    poison: `${base}:poison`,
    poisonVersion: `${base}:poison-version`,
    sealArmed: `${base}:seal-armed`,
    dropped: `${base}:dropped`,
  };
}

export type ShardKeyName = keyof ShardKeys;

/**
 * KEYS[1..10] of every shard command (shared/redis/commands/*-10.lua): their headers name
 * these keys at these positions, and a unit test holds them to it.
 */
export const SHARD_KEY_ORDER: readonly ShardKeyName[] = [
  'seq',
  'inflight',
  'walRows',
  'unsealedBytes',
  'sealedCount',
  'poison',
  'sealedVersion',
  'poisonVersion',
  'sealArmed',
  'dropped',
];

/** Every key of the shard, in `SHARD_KEY_ORDER`. */
export function shardKeyList(keys: ShardKeys): string[] {
  return SHARD_KEY_ORDER.map((name) => keys[name]);
}

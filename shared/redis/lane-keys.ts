/**
 * Redis keys of a table WAL lane (docs/table-wal-lane.md, §6): one seq counter for every
 * shard of the table, and the per-shard state the allocation checks kept in hashes keyed by
 * shard. All of them share one hash tag, `{table/wal}`, so that an allocation touching any
 * set of shards is one script on one node of a Redis Cluster.
 */
export interface LaneKeys {
  /** Highest seq allocated; its absence means Redis has not been told this lane's state. */
  seq: string;
  /** ZSET seq → allocation time (ms) of writes whose entry may not have landed yet. */
  inflight: string;
  /**
   * HASH seq → the packed sections of a landed entry (`packSections`), so a seal cuts its
   * shard's sections without reading the entry's footer. Kept until every shard sealed past it.
   */
  sections: string;
  /** HASH shard → bytes of its sections landed past its last seal (I18). */
  unsealedBytes: string;
  /** HASH shard → sealed generations not yet flushed (I18). */
  sealedCount: string;
  /** HASH shard → manifest version its sealed count was taken from: an older one never overwrites a newer one. */
  sealedVersion: string;
  /**
   * HASH shard → the last seq its seal committed. The lowest over all shards bounds what
   * `:sections` may forget; a shard without one counts as 0.
   */
  sealedThrough: string;
  /** HASH shard → JSON poison record cached from the shard manifest (I7). */
  poison: string;
  /**
   * HASH shard → manifest version the cached poison state (present or cleared) was taken
   * from, so a sync that read an older manifest never brings back a cleared poison.
   */
  poisonVersion: string;
  /**
   * HASH shard → time (ms) until which its seal is armed. Hash fields cannot expire on the
   * Redis versions Sluice supports, so the scripts compare it with the `now` they are given:
   * an arm past its time counts as absent, as an expired key does on a shard lane.
   */
  sealArmed: string;
  /** The table's drop flag, "1" or "0"; absent until a writer filled it from the store. */
  dropped: string;
}

export function laneKeys(prefix: string, table: string): LaneKeys {
  const base = `${prefix}:{${table}/wal}`;
  return {
    seq: `${base}:seq`,
    inflight: `${base}:inflight`,
    sections: `${base}:sections`,
    unsealedBytes: `${base}:unsealed-bytes`,
    sealedCount: `${base}:sealed-count`,
    sealedVersion: `${base}:sealed-version`,
    sealedThrough: `${base}:sealed-through`,
    poison: `${base}:poison`,
    poisonVersion: `${base}:poison-version`,
    sealArmed: `${base}:seal-armed`,
    dropped: `${base}:dropped`,
  };
}

export type LaneKeyName = keyof LaneKeys;

/**
 * KEYS[1..11] of every lane command (shared/redis/commands/lane-*-11.lua): their headers
 * name these keys at these positions, and a unit test holds them to it.
 */
export const LANE_KEY_ORDER: readonly LaneKeyName[] = [
  'seq',
  'inflight',
  'sections',
  'unsealedBytes',
  'sealedCount',
  'sealedVersion',
  'sealedThrough',
  'poison',
  'poisonVersion',
  'sealArmed',
  'dropped',
];

/** Every key of the lane, in `LANE_KEY_ORDER`. */
export function laneKeyList(keys: LaneKeys): string[] {
  return LANE_KEY_ORDER.map((name) => keys[name]);
}

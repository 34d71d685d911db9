/**
 * A table lane's seal bookkeeping in Redis: the sections of landed entries a seal cuts
 * its shard's generations from, and per shard the counters backpressure reads (I18) —
 * sealed generations not yet flushed with the manifest version they were taken from, and,
 * through the seal's bookkeeping, unsealed bytes and the seq sealed through
 * (docs/table-wal-lane.md, §4 "Seal" step 7).
 */

import { askInChunks } from './by-seq.ts';
import type { RedisClient } from './connection.ts';
import { LANE_RECORD_SEAL, LANE_RECORD_SEALED_COUNT } from './lane-commands.ts';
import { type LaneKeys, laneKeys } from './lane-keys.ts';
import { type EntrySections, parseSections } from './lane-sections.ts';
import { runLuaCommand } from './lua-commands.ts';

/** What a shard's seal commit sealed, for `LaneSealCounters.recordSeal`. */
export interface LaneSealRecord {
  /** Bytes of this shard's sections the seal took out of the unsealed range. */
  bytes: number;
  sealedCount: number;
  manifestVersion: number;
  /** The manifest's new `sealedThrough`, a table seq. */
  sealedThrough: number;
  /** The table's shard count: sections go only once every shard sealed past them. */
  shardCount: number;
}

export class LaneSealCounters {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private keys(table: string): LaneKeys {
    return laneKeys(this.prefix, table);
  }

  /**
   * The sections Redis holds of the entries at `seqs`, in one HMGET. A seq left out has
   * none there (never completed, forgotten, or not in the packing): read its footer.
   */
  async sections(table: string, seqs: readonly number[]): Promise<Map<number, EntrySections>> {
    const found = new Map<number, EntrySections>();
    if (seqs.length === 0) return found;
    const key = this.keys(table).sections;
    const packed = await askInChunks(seqs, (chunk) => this.redis.hmget(key, ...chunk));
    seqs.forEach((seq, i) => {
      const parsed = packed[i] ? parseSections(packed[i]) : null;
      if (parsed) found.set(seq, parsed);
    });
    return found;
  }

  /**
   * After shard `shard`'s seal commit: its sealed bytes leave its unsealed count, its sealed
   * count is the manifest's, its sealed-through moves up, and what every shard has sealed
   * (in-flight marks, sections) is forgotten.
   */
  async recordSeal(table: string, shard: number, sealed: LaneSealRecord): Promise<void> {
    await runLuaCommand(this.redis, LANE_RECORD_SEAL, this.keys(table), [
      shard,
      sealed.bytes,
      sealed.sealedCount,
      sealed.manifestVersion,
      sealed.sealedThrough,
      sealed.shardCount,
    ]);
  }

  async setSealedCount(
    table: string,
    shard: number,
    sealedCount: number,
    manifestVersion: number,
  ): Promise<void> {
    await runLuaCommand(this.redis, LANE_RECORD_SEALED_COUNT, this.keys(table), [
      shard,
      sealedCount,
      manifestVersion,
    ]);
  }

  /** Each shard's sealed-through as the seals recorded it; a shard absent has recorded none. */
  async sealedThroughs(table: string): Promise<Map<number, number>> {
    const all = await this.redis.hgetall(this.keys(table).sealedThrough);
    return new Map(Object.entries(all).map(([shard, seq]) => [Number(shard), Number(seq)]));
  }
}

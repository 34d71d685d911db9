/**
 * A shard's backpressure counters in Redis (I18): the rows of each WAL entry, the sealed
 * generations not yet flushed with the manifest version they were taken from, and, through
 * the seal's bookkeeping, the unsealed bytes. The allocation reads them (`SeqAllocation`);
 * seals and flushes keep them (docs/design.md, "I18 Backpressure, not collapse").
 */
import { bySeq } from './by-seq.ts';
import type { RedisClient } from './connection.ts';
import { runLuaCommand } from './lua-commands.ts';
import { RECORD_SEAL, RECORD_SEALED_COUNT } from './shard-commands.ts';
import { type ShardKeys, shardKeys } from './shard-keys.ts';

export class SealCounters {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private keys(table: string, shard: number): ShardKeys {
    return shardKeys(this.prefix, table, shard);
  }

  async walRows(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    return bySeq(seqs, await this.redis.hmget(this.keys(table, shard).walRows, ...seqs.map(String)));
  }

  /**
   * After a seal commit: the sealed bytes leave the unsealed count, the sealed count is the
   * manifest's, and the sealed seqs leave the in-flight and row-count bookkeeping.
   */
  async recordSeal(
    table: string,
    shard: number,
    sealed: { bytes: number; sealedCount: number; manifestVersion: number; seqs: number[] },
  ): Promise<void> {
    await runLuaCommand(this.redis, RECORD_SEAL, this.keys(table, shard), [
      sealed.bytes,
      sealed.sealedCount,
      sealed.manifestVersion,
      ...sealed.seqs,
    ]);
  }

  async setSealedCount(
    table: string,
    shard: number,
    sealedCount: number,
    manifestVersion: number,
  ): Promise<void> {
    await runLuaCommand(this.redis, RECORD_SEALED_COUNT, this.keys(table, shard), [
      sealedCount,
      manifestVersion,
    ]);
  }
}

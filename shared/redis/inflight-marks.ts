/**
 * A shard's in-flight marks in Redis, and a table WAL lane's: the seqs allocated whose WAL entry may not have landed
 * yet, with their allocation times, which a seal reads to tell a hole from a write still
 * under way (docs/design.md, "Seal"). The allocation adds them and completions remove
 * them (`SeqAllocation`).
 */
import { askInChunks, bySeq } from './by-seq.ts';
import type { RedisClient } from './connection.ts';
import { laneKeys } from './lane-keys.ts';
import { shardKeys } from './shard-keys.ts';

export class InflightMarks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(table: string, shard: number): string {
    return shardKeys(this.prefix, table, shard).inflight;
  }

  /** Allocation times of the in-flight seqs among `seqs`; absent = not in flight (or forgotten). */
  async since(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    return bySeq(
      seqs,
      await askInChunks(seqs, (chunk) => this.redis.zmscore(this.key(table, shard), ...chunk)),
    );
  }

  /** As `since`, of a table's WAL lane (docs/table-wal-lane.md). */
  async laneSince(table: string, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    const key = laneKeys(this.prefix, table).inflight;
    return bySeq(seqs, await askInChunks(seqs, (chunk) => this.redis.zmscore(key, ...chunk)));
  }
}

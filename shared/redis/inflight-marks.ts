/**
 * A shard's in-flight marks in Redis: the seqs allocated whose WAL entry may not have landed
 * yet, with their allocation times, which a seal reads to tell a hole from a write still
 * under way (docs/design.md, "Seal"). The allocation adds them and completions remove
 * them (`SeqAllocation`).
 */
import { bySeq } from './by-seq.ts';
import type { RedisClient } from './connection.ts';
import { shardKeys } from './shard-keys.ts';

export class InflightMarks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(table: string, shard: number): string {
    return shardKeys(this.prefix, table, shard).inflight;
  }

  /** In-flight seqs above `seq` with their allocation times (ms). */
  async after(table: string, shard: number, seq: number): Promise<Map<number, number>> {
    const flat = await this.redis.zrange(this.key(table, shard), 0, -1, 'WITHSCORES');
    const since = new Map<number, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const member = Number(flat[i]);
      if (member > seq) since.set(member, Number(flat[i + 1]));
    }
    return since;
  }

  /** Allocation times of the in-flight seqs among `seqs`; absent = not in flight (or forgotten). */
  async since(table: string, shard: number, seqs: number[]): Promise<Map<number, number>> {
    if (seqs.length === 0) return new Map();
    return bySeq(seqs, await this.redis.zmscore(this.key(table, shard), ...seqs.map(String)));
  }
}

/**
 * What the sampler keeps in Redis so one tick costs what changed, not what exists: the
 * shards whose manifests changed since the last tick (marked by seal, flush, merge and
 * compaction), and the last sampled state of every shard. Losing it loses nothing: an
 * empty index makes the next tick sweep every table from the store.
 */
import type { RedisClient } from '../redis/connection.ts';

export interface SampledShard {
  table: string;
  shard: number;
  /** Sealed plus committed-unmerged generations. */
  pending: number;
  unmerged: number;
  /** Rows of the committed-unmerged generations. */
  unmergedRows: number;
  /** Commit time (ms) of the oldest committed-unmerged generation, or null. */
  oldestUnmergedAt: number | null;
  poisoned: boolean;
}

export class SamplerIndex {
  private readonly dirtyKey: string;
  private readonly shardsKey: string;
  private readonly sweptKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.dirtyKey = `${prefix}:{sampler}:dirty`;
    this.shardsKey = `${prefix}:{sampler}:shards`;
    this.sweptKey = `${prefix}:{sampler}:swept-at`;
  }

  async markDirty(table: string, shards: number[]): Promise<void> {
    if (shards.length > 0)
      await this.redis.sadd(this.dirtyKey, ...shards.map((shard) => `${shard}/${table}`));
  }

  /** Takes every dirty mark; a mark set meanwhile waits for the next tick. */
  async takeDirty(): Promise<Array<{ table: string; shard: number }>> {
    const [[, members]] = (await this.redis.multi().smembers(this.dirtyKey).del(this.dirtyKey).exec()) as [
      [unknown, string[]],
      unknown,
    ];
    return members.map((member) => {
      const slash = member.indexOf('/');
      return { shard: Number(member.slice(0, slash)), table: member.slice(slash + 1) };
    });
  }

  async save(states: SampledShard[]): Promise<void> {
    if (states.length === 0) return;
    await this.redis.hset(
      this.shardsKey,
      Object.fromEntries(states.map((s) => [`${s.shard}/${s.table}`, JSON.stringify(s)])),
    );
  }

  async all(): Promise<SampledShard[]> {
    const values = await this.redis.hvals(this.shardsKey);
    // A state saved before `unmergedRows` existed reads as 0 until its shard is sampled again.
    return values.map((value) => {
      const state = JSON.parse(value) as SampledShard;
      return { ...state, unmergedRows: state.unmergedRows ?? 0 };
    });
  }

  /** True when the last full sweep is older than `everyMs`, or Redis has no record of one. */
  async sweepDue(now: number, everyMs: number): Promise<boolean> {
    const at = await this.redis.get(this.sweptKey);
    return at === null || now - Number(at) >= everyMs;
  }

  async recordSweep(now: number): Promise<void> {
    await this.redis.set(this.sweptKey, now);
  }
}

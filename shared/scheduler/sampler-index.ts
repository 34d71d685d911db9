/**
 * What the sampler keeps in Redis so one tick costs what changed, not what exists: the
 * shards whose manifests changed since the last tick (marked by seal, flush and merge), the
 * last sampled state of every shard, and the last measured health of every base. Losing it loses nothing: an
 * empty index makes the next tick sweep every table from the store.
 */
import type { BaseHealth } from '../base/base-health.ts';
import type { Backlog } from '../lsm/backlog.ts';
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

/** What one sampled shard holds committed and not merged. */
export function sampledBacklog(state: SampledShard): Backlog {
  return { generations: state.unmerged, rows: state.unmergedRows, oldestCommittedAt: state.oldestUnmergedAt };
}

export class SamplerIndex {
  private readonly dirtyKey: string;
  private readonly shardsKey: string;
  private readonly sweptKey: string;
  private readonly basesKey: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.dirtyKey = `${prefix}:{sampler}:dirty`;
    this.shardsKey = `${prefix}:{sampler}:shards`;
    this.sweptKey = `${prefix}:{sampler}:swept-at`;
    this.basesKey = `${prefix}:{sampler}:bases`;
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

  /** The base of `table` as last measured; null forgets it (a dropped table). */
  async saveBase(table: string, base: BaseHealth | null): Promise<void> {
    if (base === null) await this.redis.hdel(this.basesKey, table);
    else await this.redis.hset(this.basesKey, table, JSON.stringify(base));
  }

  async bases(): Promise<Map<string, BaseHealth>> {
    const all = await this.redis.hgetall(this.basesKey);
    return new Map(Object.entries(all).map(([table, value]) => [table, JSON.parse(value) as BaseHealth]));
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

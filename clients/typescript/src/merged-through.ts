/**
 * Whether the rows a client has been acked are in the base yet, read from shard stats: a
 * shard's writes up to a seq are merged once that seq is sealed and no generation still
 * pending (sealed, or committed above the merge watermark) starts at or before it.
 */
import type { ShardStats } from './types.ts';

/** What is still to merge of one shard's writes up to `seq`. */
export interface ShardLeft {
  shard: number;
  /** The shard has not sealed up to `seq` yet. */
  unsealed: boolean;
  generations: number;
  rows: number;
}

/** The seq below which every write this client was acked lies: allocations cover abandoned seqs too. */
export function ackedThrough(stats: ShardStats): number {
  return Math.max(stats.frontier, stats.allocatedThrough ?? 0);
}

export function leftToMerge(stats: ShardStats, seq: number): ShardLeft {
  const pending = [
    ...stats.sealed,
    ...stats.committed.filter((g) => g.generation > stats.mergedThrough),
  ].filter((g) => g.walFrom <= seq);
  return {
    shard: stats.shard,
    unsealed: stats.sealedThrough < seq,
    generations: pending.length,
    rows: pending.reduce((sum, g) => sum + g.walRows, 0),
  };
}

export function isMerged(left: ShardLeft): boolean {
  return !left.unsealed && left.generations === 0;
}

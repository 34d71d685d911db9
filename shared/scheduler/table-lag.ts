/**
 * How far each table's base lags its writes, from what the sampler keeps in Redis: the
 * committed generations and rows not yet merged and the age of the oldest, and the base's
 * own health (versions kept, fragments, index coverage). The /metrics gauges read it at
 * scrape time, so every process that serves /metrics shows the same figures.
 */
import type { BaseHealth } from '../base/base-health.ts';
import type { SampledShard, SamplerIndex } from './sampler-index.ts';

export interface TableLag {
  table: string;
  pendingGenerations: number;
  pendingRows: number;
  /** Seconds since the oldest unmerged generation was committed; 0 when none is. */
  oldestPendingSeconds: number;
  base: BaseHealth | null;
}

export async function tableLags(index: SamplerIndex, now = Date.now()): Promise<TableLag[]> {
  const [shards, bases] = await Promise.all([index.all(), index.bases()]);
  const byTable = new Map<string, SampledShard[]>();
  for (const shard of shards) byTable.set(shard.table, [...(byTable.get(shard.table) ?? []), shard]);
  return [...byTable].map(([table, sampled]) => {
    const oldest = Math.min(...sampled.map((s) => s.oldestUnmergedAt ?? Number.POSITIVE_INFINITY));
    return {
      table,
      pendingGenerations: sampled.reduce((sum, s) => sum + s.unmerged, 0),
      pendingRows: sampled.reduce((sum, s) => sum + s.unmergedRows, 0),
      oldestPendingSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
      base: bases.get(table) ?? null,
    };
  });
}

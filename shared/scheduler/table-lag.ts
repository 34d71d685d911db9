/**
 * How far each table's base lags its writes, from what the sampler keeps in Redis: the
 * committed generations and rows not yet merged and the age of the oldest, and the base's
 * own health (versions kept, fragments, index coverage). The /metrics gauges read it at
 * scrape time, so every process that serves /metrics shows the same figures.
 */
import type { BaseHealth } from '../base/base-health.ts';
import { sumBacklogs } from '../lsm/backlog.ts';
import { type SampledShard, type SamplerIndex, sampledBacklog } from './sampler-index.ts';

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
    const { generations, rows, oldestCommittedAt } = sumBacklogs(sampled.map(sampledBacklog));
    return {
      table,
      pendingGenerations: generations,
      pendingRows: rows,
      oldestPendingSeconds: oldestCommittedAt === null ? 0 : Math.max(0, (now - oldestCommittedAt) / 1000),
      base: bases.get(table) ?? null,
    };
  });
}

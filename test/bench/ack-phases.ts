/**
 * Where a Sluice case's acks spent their time, per phase of the WAL writer
 * (`sluice_wal_ack_phase_seconds`, docs/design.md "Where an ack waits"): the histogram's
 * counts taken around each slice of this process's writers and summed, so other cases'
 * slices in between do not count. Percentiles are interpolated within a bucket, so they are
 * as fine as the buckets (a few ms below 50 ms); the mean is exact.
 */
import { walAckPhase } from '../../shared/metrics.ts';
import { round } from './write-drive.ts';

/** Per phase: cumulative count per bucket bound (ms), the sum (ms) and the count. */
type Snapshot = Map<string, { buckets: Map<number, number>; sumMs: number; count: number }>;

export interface PhaseFigures {
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

async function snapshot(): Promise<Snapshot> {
  const out: Snapshot = new Map();
  const of = (phase: string) => {
    let entry = out.get(phase);
    if (!entry) {
      entry = { buckets: new Map(), sumMs: 0, count: 0 };
      out.set(phase, entry);
    }
    return entry;
  };
  for (const v of (await walAckPhase.get()).values) {
    const entry = of(String(v.labels.phase));
    if (v.metricName?.endsWith('_bucket')) {
      const bound = (v.labels as { le?: string | number }).le;
      const le = bound === '+Inf' ? Number.POSITIVE_INFINITY : Number(bound) * 1000;
      entry.buckets.set(le, v.value);
    } else if (v.metricName?.endsWith('_sum')) entry.sumMs = v.value * 1000;
    else if (v.metricName?.endsWith('_count')) entry.count = v.value;
  }
  return out;
}

/** Sums of what the phases observed during the slices measured with `around`. */
export class AckPhases {
  private readonly total: Snapshot = new Map();

  async around<T>(run: () => Promise<T>): Promise<T> {
    const before = await snapshot();
    const result = await run();
    const after = await snapshot();
    for (const [phase, now] of after) {
      const was = before.get(phase);
      const sum = this.total.get(phase) ?? { buckets: new Map(), sumMs: 0, count: 0 };
      for (const [le, n] of now.buckets) {
        sum.buckets.set(le, (sum.buckets.get(le) ?? 0) + n - (was?.buckets.get(le) ?? 0));
      }
      sum.sumMs += now.sumMs - (was?.sumMs ?? 0);
      sum.count += now.count - (was?.count ?? 0);
      this.total.set(phase, sum);
    }
    return result;
  }

  figures(): Record<string, PhaseFigures> {
    const out: Record<string, PhaseFigures> = {};
    for (const [phase, { buckets, sumMs, count }] of this.total) {
      if (count === 0) continue;
      const bounds = [...buckets].sort((a, b) => a[0] - b[0]);
      out[phase] = {
        meanMs: round(sumMs / count, 2),
        p50Ms: round(quantile(bounds, count, 0.5), 1),
        p99Ms: round(quantile(bounds, count, 0.99), 1),
      };
    }
    return out;
  }
}

/** The q-quantile of cumulative bucket counts, linear within its bucket (the last finite bound past it). */
function quantile(bounds: Array<[number, number]>, count: number, q: number): number {
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of bounds) {
    if (cumulative >= rank) {
      if (!Number.isFinite(le)) return lower;
      const inBucket = cumulative - below;
      return inBucket === 0 ? le : lower + ((le - lower) * (rank - below)) / inBucket;
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

/**
 * The writers of the write bench: the same loop drives every system. `writers` loops take
 * the next batch until the time is up, going round the prebuilt batches again once all were
 * written (a later round upserts keys already written), so every case runs its full time
 * and a burst never stands for a rate; each write is timed from its call to its ack. With a
 * rate, the loops are paced (open loop): write i starts no earlier than i / rate seconds
 * after the start, so a freshness case runs below the peak.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { isSluiceError } from '../../shared/errors.ts';

export interface Drive {
  writes: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
  backpressureRetries: number;
  /** Writes started over the number of batches: above 1, keys were written again. */
  rounds: number;
}

export interface DriveOptions {
  writers: number;
  /** How many batches there are; write i takes batch i modulo this. */
  batches: number;
  seconds: number;
  /** Writes per second over all writers; omitted = as fast as acks come back. */
  writesPerSecond?: number;
  arrivals: Arrivals;
}

/**
 * How writers acked at once come back: `burst`, each runs its next write as soon as its
 * ack resolves, so writers acked by one put all write again before any other turn (an
 * in-process caller); `turns`, each next write starts in a turn of its own, as requests off
 * the network do, so a group's next writes are spread over the time their conversions take.
 */
export type Arrivals = 'burst' | 'turns';

export function arrivalsOf(value: string | undefined): Arrivals {
  if (value === undefined || value === 'burst' || value === 'turns') return value ?? 'burst';
  throw new Error(`BENCH_WRITE_ARRIVALS must be burst or turns, not ${value}`);
}

/** Backpressured writes are retried after this, for as long past the case's end. */
const BACKPRESSURE_PAUSE_MS = 50;
const BACKPRESSURE_GIVE_UP_MS = 30_000;

/** A backpressured write is retried (its wait counts in its latency); any other error is counted. */
export async function drive<T>(
  options: DriveOptions,
  write: (batch: number) => Promise<T>,
  onAck: (result: T, ackAt: number, batch: number) => void,
): Promise<Drive> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  let backpressureRetries = 0;
  const start = performance.now();
  const deadline = start + options.seconds * 1000;
  const loop = async () => {
    for (;;) {
      if (performance.now() >= deadline) return;
      const index = next++;
      const batch = index % options.batches;
      if (options.writesPerSecond) {
        const due = start + (index * 1000) / options.writesPerSecond;
        if (due > performance.now()) await sleep(due - performance.now());
      }
      if (options.arrivals === 'turns') await nextTurn();
      const t0 = performance.now();
      for (;;) {
        try {
          const result = await write(batch);
          const ackAt = performance.now();
          latencies.push(ackAt - t0);
          onAck(result, ackAt, batch);
          break;
        } catch (err) {
          if (isSluiceError(err, 'BACKPRESSURE') && performance.now() < deadline + BACKPRESSURE_GIVE_UP_MS) {
            backpressureRetries++;
            await sleep(BACKPRESSURE_PAUSE_MS);
            continue;
          }
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, loop));
  const seconds = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    writes: latencies.length,
    seconds: round(seconds, 3),
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    backpressureRetries,
    rounds: round(next / options.batches, 2),
  };
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Peak resident set size of this process while `fn` runs, sampled every 20 ms, in MiB. */
export async function peakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peakRssMb: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakRssMb: round(peak / 2 ** 20, 1) };
  } finally {
    clearInterval(timer);
  }
}

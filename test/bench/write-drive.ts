/**
 * The writers of the write bench: the same loop drives every system. `writers` loops take
 * the next batch until the time is up, going round the prebuilt batches again once all were
 * written (a later round upserts keys already written), so every case runs its full time
 * and a burst never stands for a rate; each write is timed from its call to its ack. With a
 * rate, the loops are paced (open loop): the slice's write i starts no earlier than i / rate
 * seconds after the slice's start, so a freshness case runs below the peak.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { isSluiceError } from '../../shared/errors.ts';
import { type CpuShares, CpuTally, readCpuTimes } from './machine-cpu.ts';

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
  /** The whole machine's CPUs while these writers wrote (machine-cpu.ts). */
  machineCpu: CpuShares | null;
}

export interface DriveOptions {
  writers: number;
  /** How many batches there are; write i takes batch i modulo this. */
  batches: number;
  /** Writes per second over all writers, from the start of each slice; omitted = as fast as acks come back. */
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

/**
 * The writers of one system in one case, run in slices (write-slices.ts): each `run` drives
 * the writers for its time, going on from the batch the previous slice stopped at, and
 * `result` gives the figures of every slice together, latencies pooled.
 */
export class Driver {
  private readonly latencies: number[] = [];
  private next = 0;
  private errors = 0;
  private firstError: string | undefined;
  private backpressureRetries = 0;
  private seconds = 0;
  private readonly cpu = new CpuTally();

  constructor(private readonly options: DriveOptions) {}

  /** A backpressured write is retried (its wait counts in its latency); any other error is counted. */
  async run<T>(
    seconds: number,
    write: (batch: number) => Promise<T>,
    onAck: (result: T, ackAt: number, batch: number) => void,
  ): Promise<void> {
    const { options } = this;
    const cpuBefore = readCpuTimes();
    const start = performance.now();
    const first = this.next;
    const deadline = start + seconds * 1000;
    const loop = async () => {
      for (;;) {
        if (performance.now() >= deadline) return;
        const index = this.next++;
        const batch = index % options.batches;
        if (options.writesPerSecond) {
          const due = start + ((index - first) * 1000) / options.writesPerSecond;
          if (due > performance.now()) await sleep(due - performance.now());
        }
        if (options.arrivals === 'turns') await nextTurn();
        await this.writeOne(batch, deadline, write, onAck);
      }
    };
    await Promise.all(Array.from({ length: options.writers }, loop));
    this.seconds += (performance.now() - start) / 1000;
    this.cpu.add(cpuBefore, readCpuTimes());
  }

  result(): Drive {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      writes: sorted.length,
      seconds: round(this.seconds, 3),
      p50Ms: round(percentile(sorted, 0.5), 2),
      p99Ms: round(percentile(sorted, 0.99), 2),
      errors: this.errors,
      ...(this.firstError === undefined ? {} : { firstError: this.firstError }),
      backpressureRetries: this.backpressureRetries,
      rounds: round(this.next / this.options.batches, 2),
      machineCpu: this.cpu.shares(),
    };
  }

  private async writeOne<T>(
    batch: number,
    deadline: number,
    write: (batch: number) => Promise<T>,
    onAck: (result: T, ackAt: number, batch: number) => void,
  ): Promise<void> {
    const t0 = performance.now();
    for (;;) {
      try {
        const result = await write(batch);
        const ackAt = performance.now();
        this.latencies.push(ackAt - t0);
        onAck(result, ackAt, batch);
        return;
      } catch (err) {
        if (isSluiceError(err, 'BACKPRESSURE') && performance.now() < deadline + BACKPRESSURE_GIVE_UP_MS) {
          this.backpressureRetries++;
          await sleep(BACKPRESSURE_PAUSE_MS);
          continue;
        }
        this.errors++;
        this.firstError ??= err instanceof Error ? err.message : String(err);
        return;
      }
    }
  }
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

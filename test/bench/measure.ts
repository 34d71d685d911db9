/** What every benchmark module exports and yields, and the one timing loop they share. */

export interface BenchResult {
  bench: string;
  case: string;
  system: string;
  [figure: string]: unknown;
}

export interface BenchModule {
  run(): AsyncIterable<BenchResult>;
}

export interface Timing {
  runs: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Calls `fn` after a few warm-up calls until at least `minSeconds` have passed and at
 * least `minRuns` calls were timed, so small and large cases are both measured steadily.
 */
export function measure(fn: () => unknown, minSeconds = 1, minRuns = 5): Timing {
  for (let i = 0; i < 3; i++) fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < minRuns || performance.now() - start < minSeconds * 1000) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    runs: times.length,
    seconds: Math.round(times.reduce((a, b) => a + b, 0) * 1000) / 1_000_000,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
  };
}

export function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

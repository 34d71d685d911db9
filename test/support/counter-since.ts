/**
 * A Prometheus counter of the process's registry read as a count since now: the registry
 * is shared by every test of a file (and by every Sluice a test builds), so a test counts
 * what happened after it looked first.
 */
import type { Counter } from 'prom-client';

export async function counterSince<L extends string>(
  counter: Counter<L>,
  labels: Partial<Record<L, string>>,
): Promise<() => Promise<number>> {
  const read = async () => {
    const { values } = await counter.get();
    const matching = values.filter((v) =>
      Object.entries(labels).every(([name, value]) => v.labels[name as L] === value),
    );
    return matching.reduce((sum, v) => sum + v.value, 0);
  };
  const start = await read();
  return async () => (await read()) - start;
}

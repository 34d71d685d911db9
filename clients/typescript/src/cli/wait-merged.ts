/** `sluice load --wait-merged`: after the load, wait until every row it loaded is in the base, saying what is left. */
import type { SluiceClient } from '../client.ts';
import type { ShardLeft } from '../merged-through.ts';

/** At most one line of what is left this often. */
const REPORT_EVERY_MS = 2_000;

export async function waitMerged(client: SluiceClient, table: string, intervalMs = 500): Promise<number> {
  const started = performance.now();
  let reported = 0;
  await client.waitMerged(table, {
    intervalMs,
    onUpdate(left: ShardLeft[]) {
      const now = performance.now();
      if (now - reported < REPORT_EVERY_MS) return;
      reported = now;
      const generations = left.reduce((sum, s) => sum + s.generations, 0);
      const rows = left.reduce((sum, s) => sum + s.rows, 0);
      const unsealed = left.filter((s) => s.unsealed).length;
      const sealing = unsealed > 0 ? `, ${unsealed} shards still sealing` : '';
      process.stderr.write(
        `waiting for the base: ${generations} generations (${rows} rows) to merge${sealing}\n`,
      );
    },
  });
  return (performance.now() - started) / 1000;
}

/**
 * A bulk load of real rows no one here wrote (vega-datasets' flights-200k, five times over
 * under distinct keys: 1,000,000 rows) through the HTTP API of a real server process, with
 * `mergeAfterSeconds` 5: the base catches up with the load within 30 s of its end, the key
 * index then covers every row, the base is compact, and no merge or optimize failed or
 * went into cooldown on the way (docs/base-table.md, "Optimize").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import { flightsPass, flightsTable, readFlights } from '../support/flights.ts';
import { type ServedProcess, serveProcess } from '../support/server-process.ts';
import { waitFor } from '../support/wait-for.ts';

const PASSES = 5;
const BATCH_ROWS = 10_000;
const WRITERS = 4;
const CATCH_UP_MS = 30_000;
const MAX_FRAGMENTS = 36;

describe('a 1M-row bulk load through HTTP: the base keeps up, indexed and compact', () => {
  let served: ServedProcess;
  let client: SluiceClient;

  beforeAll(async () => {
    served = await serveProcess('bulk-load', { role: 'all', env: { SLUICE_SAMPLER_INTERVAL_SECONDS: '1' } });
    client = new SluiceClient({ url: served.server.url, token: served.tokens.all });
    await client.createTable(flightsTable('flights'));
  });

  afterAll(() => served?.stop());

  it('catches up within 30 s of the load, every row indexed, a few dozen fragments, no failure', async () => {
    const flights = await readFlights();
    const passes = Array.from({ length: PASSES }, (_, pass) => flightsPass(flights, pass));
    const slices = passes.flatMap((pass) =>
      Array.from({ length: Math.ceil(pass.numRows / BATCH_ROWS) }, (_, i) =>
        pass.slice(i * BATCH_ROWS, (i + 1) * BATCH_ROWS),
      ),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < slices.length) await client.write('flights', slices[next++]!);
      }),
    );
    const loaded = performance.now();
    const total = PASSES * flights.numRows;

    await client.waitMerged('flights', { intervalMs: 250 });
    const caughtUpSeconds = (performance.now() - loaded) / 1000;
    const indexed = await waitFor(
      async () => {
        const { stats } = await client.describeTable('flights');
        const key = stats.base?.indexes.find((i) => i.columns.join() === 'id');
        return key && key.unindexedRows === 0 ? stats : null;
      },
      { timeoutMs: CATCH_UP_MS, message: 'the key index to cover every row' },
    );
    const indexedSeconds = (performance.now() - loaded) / 1000;
    process.stdout.write(
      `bulk load: ${total} rows; caught up ${caughtUpSeconds.toFixed(1)} s and indexed ${indexedSeconds.toFixed(1)} s after the load; ${indexed.base!.fragments} fragments\n`,
    );

    expect(caughtUpSeconds).toBeLessThanOrEqual(CATCH_UP_MS / 1000);
    expect(indexedSeconds).toBeLessThanOrEqual(CATCH_UP_MS / 1000);
    expect(indexed.baseRows).toBe(total);
    expect(indexed.pendingRows).toBe(0);
    expect(indexed.base!.indexes.find((i) => i.columns.join() === 'id')?.indexedRows).toBe(total);
    expect(indexed.base!.fragments).toBeLessThanOrEqual(MAX_FRAGMENTS);
    expect((await client.cooldowns()).items).toEqual([]);
    expect((await client.mergeFailures()).items).toEqual([]);
    const failures = served.server.lines.filter((l) => /failed|cooldown/.test(String(l.msg)));
    expect(failures).toEqual([]);
    expect(await client.lookup('flights', total - 1)).toMatchObject({ id: total - 1 });
  }, 300_000);
});

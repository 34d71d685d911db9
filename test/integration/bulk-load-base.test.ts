/**
 * A bulk load of real rows no one here wrote (vega-datasets' flights-200k, five times over
 * under distinct keys: 1,000,000 rows) through the HTTP API of a real server process, with
 * `mergeAfterSeconds` 5: the base catches up with the load within 30 s of its end, the key
 * index then covers every row, the base is compact, and no merge or optimize failed or
 * went into cooldown on the way (docs/base-table.md, "Optimize").
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Table, tableFromArrays, tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import { type ServedProcess, serveProcess } from '../support/server-process.ts';
import { waitFor } from '../support/wait-for.ts';

const PASSES = 5;
const BATCH_ROWS = 10_000;
const WRITERS = 4;
const CATCH_UP_MS = 30_000;
const MAX_FRAGMENTS = 36;

/** The package exports only its index; its data files sit beside it. */
const flightsPath = fileURLToPath(
  new URL('../../node_modules/vega-datasets/data/flights-200k.arrow', import.meta.url),
);

/** One pass over the flights under ids `pass × rows …`: their int16 columns widened to int32. */
function flightsPass(flights: Table, pass: number): Table {
  const n = flights.numRows;
  const widen = (name: string) => Int32Array.from(flights.getChild(name)!.toArray() as Int16Array);
  return tableFromArrays({
    id: BigInt64Array.from({ length: n }, (_, i) => BigInt(pass * n + i)),
    delay: widen('delay'),
    distance: widen('distance'),
    time: flights.getChild('time')!.toArray() as Float32Array,
  });
}

describe('a 1M-row bulk load through HTTP: the base keeps up, indexed and compact', () => {
  let served: ServedProcess;
  let client: SluiceClient;

  beforeAll(async () => {
    served = await serveProcess('bulk-load', { role: 'all', env: { SLUICE_SAMPLER_INTERVAL_SECONDS: '1' } });
    client = new SluiceClient({ url: served.server.url, token: served.tokens.all });
    await client.createTable({
      name: 'flights',
      schema: {
        fields: [
          { name: 'id', type: 'int64', nullable: false },
          { name: 'delay', type: 'int32', nullable: true },
          { name: 'distance', type: 'int32', nullable: true },
          { name: 'time', type: 'float32', nullable: true },
        ],
      },
      primaryKey: ['id'],
      shards: 4,
      settings: { mergeAfterSeconds: 5 },
    });
  });

  afterAll(() => served?.stop());

  it('catches up within 30 s of the load, every row indexed, a few dozen fragments, no failure', async () => {
    const flights = tableFromIPC(await readFile(flightsPath));
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

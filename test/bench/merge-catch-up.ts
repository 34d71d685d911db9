/**
 * `npm run bench -- merge-catch-up` (also the first cases of `npm run bench -- merge`):
 * whether merges keep up with a bulk load (docs/base-table.md, "Optimize"). Real rows no
 * one here wrote: vega-datasets' flights-200k, 15 times over under distinct keys (3M
 * rows), appended as Arrow by one writer (4 batches in flight) into a 4-shard table with
 * `mergeAfterSeconds` 5, workers in this process, sampler every second.
 *
 * - `ingest-then-merge`: the load with the merge lane stopped gives one writer's Arrow ingest
 *   rows/s; then the lane alone merges all of it, giving merge rows/s into the base: the
 *   goal is merge rows/s ≥ ingest rows/s (`ratio`). Its table makes every generation due at
 *   once (`mergeAfterGenerations` 1), so no trigger holds the last few back while it is timed.
 * - `load-with-merges`: the same load with every worker running; seconds from the load's
 *   end until nothing is pending (`caughtUpSeconds`, goal ≤ 30) and until the key index
 *   covers every row (`indexedSeconds`), and the base's fragments then.
 * - `lookup-after-load`: point lookups of that base through Sluice against LanceDB's own
 *   filtered query of the same version, interleaved key by key: p50 of each and their ratio
 *   (goal ≤ 1.5).
 */
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { ensureRedis } from '../../infra/local/redis.ts';
import { startWorkers, type WorkerSet } from '../../jobs/workers.ts';
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { lanceDb } from '../../shared/base/lance-module.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger, silentLogger } from '../../shared/log.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import { flightsPass, flightsTable, readFlights } from '../support/flights.ts';
import { deletePrefix } from '../support/redis.ts';
import { benchDir } from './bench-dirs.ts';
import { type BenchResult, progress } from './measure.ts';

const PASSES = 15;
const BATCH_ROWS = 50_000;
const IN_FLIGHT = 4;
const POLL_MS = 100;
const LOOKUPS = 400;
const SETTLE_MS = 600_000;

async function flightBatches(): Promise<RecordBatch[]> {
  const flights = await readFlights();
  const batches: RecordBatch[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const table = flightsPass(flights, pass);
    for (let from = 0; from < table.numRows; from += BATCH_ROWS) {
      batches.push(...table.slice(from, from + BATCH_ROWS).batches);
    }
  }
  return batches;
}

async function createFlights(runtime: Runtime, name: string, settings: Record<string, number> = {}) {
  const table = flightsTable(name);
  return runtime.sluice.tables.create({ ...table, settings: { ...table.settings, ...settings } });
}

/** Appends every batch, `IN_FLIGHT` at once; seconds it took. */
async function load(runtime: Runtime, table: string, batches: RecordBatch[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < batches.length) await runtime.sluice.writes.append(table, batches[next++]!);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Polls the table's stats until `done` holds; seconds since `from`. */
async function until(
  runtime: Runtime,
  table: string,
  from: number,
  done: (stats: Awaited<ReturnType<Runtime['sluice']['reads']['stats']>>) => boolean,
): Promise<{ seconds: number; stats: Awaited<ReturnType<Runtime['sluice']['reads']['stats']>> }> {
  const def = await runtime.sluice.tables.describe(table);
  const deadline = performance.now() + SETTLE_MS;
  for (;;) {
    const stats = await runtime.sluice.reads.stats(def);
    if (done(stats)) return { seconds: (performance.now() - from) / 1000, stats };
    if (performance.now() > deadline) throw new Error(`${table} did not settle in ${SETTLE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const merged = (s: { pendingGenerations: number; unsealedEntries: number }) =>
  s.pendingGenerations === 0 && s.unsealedEntries === 0;
const flushed = (
  s: { sealedGenerations: number; unsealedEntries: number; committedRows: number },
  rows: number,
) => s.sealedGenerations === 0 && s.unsealedEntries === 0 && s.committedRows >= rows;
const indexed = (s: { base: { indexes: Array<{ columns: string[]; unindexedRows: number }> } | null }) =>
  s.base?.indexes.some((i) => i.columns.join() === 'id' && i.unindexedRows === 0) ?? false;

export async function* run(): AsyncIterable<BenchResult> {
  const dir = await benchDir('merge-catch-up');
  const redis = await ensureRedis(process.env.SLUICE_REDIS_URL ?? 'redis://127.0.0.1:6379', silentLogger);
  const config = loadConfig(
    {},
    {
      redisUrl: redis.url,
      redisPrefix: `sluice-bench-catch-up-${process.pid}`,
      storeUrl: `file://${dir}`,
      logLevel: 'silent',
      scheduler: { samplerIntervalSeconds: 1 },
    },
  );
  const runtime = openRuntime(config, createLogger({ level: 'silent' }), new FsStore(dir));
  const running: WorkerSet[] = [];
  const workers = (queues: Parameters<typeof startWorkers>[1]) => {
    const set = startWorkers(runtime.sluice, queues);
    running.push(set);
    return set;
  };
  try {
    const batches = await flightBatches();
    const rows = batches.reduce((sum, b) => sum + b.numRows, 0);

    progress(`ingest-then-merge: loading ${rows} rows with the merge lane stopped`);
    // Every generation due at once: the lane's throughput, not how long a trigger holds the last few back.
    await createFlights(runtime, 'alone', { mergeAfterGenerations: 1 });
    workers(['seal', 'flush', 'sampler']);
    const ingestSeconds = await load(runtime, 'alone', batches);
    await until(runtime, 'alone', performance.now(), (s) => flushed(s, rows));
    progress('ingest-then-merge: the merge lane alone');
    const mergeStarted = performance.now();
    workers(['merge']);
    const mergedAlone = await until(runtime, 'alone', mergeStarted, merged);
    const indexedAlone = await until(runtime, 'alone', mergeStarted, indexed);
    const ingestRowsPerSec = Math.round(rows / ingestSeconds);
    const mergeRowsPerSec = Math.round(rows / mergedAlone.seconds);
    yield {
      bench: 'merge',
      case: `ingest-then-merge-${rows}rows`,
      system: 'sluice',
      rows,
      ingestSeconds: round1(ingestSeconds),
      ingestRowsPerSec,
      mergeSeconds: round1(mergedAlone.seconds),
      mergeRowsPerSec,
      indexedSeconds: round1(indexedAlone.seconds),
      ratio: Math.round((mergeRowsPerSec / ingestRowsPerSec) * 100) / 100,
      goal: 1,
    };

    progress(`load-with-merges: loading ${rows} rows with every worker running`);
    await createFlights(runtime, 'together');
    const together = await load(runtime, 'together', batches);
    const loadedAt = performance.now();
    const caughtUp = await until(runtime, 'together', loadedAt, merged);
    const covered = await until(runtime, 'together', loadedAt, indexed);
    yield {
      bench: 'merge',
      case: `load-with-merges-${rows}rows`,
      system: 'sluice',
      rows,
      loadSeconds: round1(together),
      loadRowsPerSec: Math.round(rows / together),
      caughtUpSeconds: round1(caughtUp.seconds),
      indexedSeconds: round1(covered.seconds),
      fragments: covered.stats.base?.fragments ?? null,
      baseVersions: covered.stats.base?.versions ?? null,
      goal: 30,
    };

    progress('lookup-after-load: Sluice against LanceDB on the same base');
    const def = await runtime.sluice.tables.describe('together');
    const { lanceVersion } = await runtime.parts.bases.read('together');
    const lance = await (await lanceDb().connect(join(dir, 'tables', 'together'))).openTable('base');
    await lance.checkout(lanceVersion!);
    const times = { sluice: [] as number[], lancedb: [] as number[] };
    for (let i = 0; i < LOOKUPS; i++) {
      const key = (i * 104_729) % rows;
      const sluice = async () => (await runtime.sluice.reads.lookup(def.name, key))?.numRows;
      const own = async () => (await lance.query().where(`id = ${key}`).limit(1).toArrow()).numRows;
      for (const [system, lookup] of i % 2 === 0
        ? ([
            ['sluice', sluice],
            ['lancedb', own],
          ] as const)
        : ([
            ['lancedb', own],
            ['sluice', sluice],
          ] as const)) {
        const t0 = performance.now();
        if ((await lookup()) !== 1) throw new Error(`${system} did not find key ${key}`);
        times[system].push(performance.now() - t0);
      }
    }
    lance.close();
    const p50 = (list: number[]) =>
      Math.round([...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]! * 100) / 100;
    yield {
      bench: 'merge',
      case: `lookup-after-load-${rows}rows`,
      system: 'ratio',
      lookups: LOOKUPS,
      sluiceP50Ms: p50(times.sluice),
      lancedbP50Ms: p50(times.lancedb),
      ratio: Math.round((p50(times.sluice) / p50(times.lancedb)) * 100) / 100,
      goal: 1.5,
    };
  } finally {
    for (const set of running) await set.close(0);
    await runtime.close();
    await deletePrefix(redis.url, config.redisPrefix);
    await redis.stop();
  }
}

function round1(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

/**
 * `npm run bench -- merge`: whether merges keep up with a bulk load (merge-catch-up.ts), what
 * a merge into the Lance base costs as the base grows, and what reads of the base cost (I14).
 *
 * - 10k rows (half updates, half new keys) and 100 deletes merged into a 100k- and a 1M-row base (and a
 *   10M-row one with SLUICE_BENCH_MERGE_10M=1): median seconds of repetitions interleaved
 *   across the sizes, split into the merge's phases (prepare, Lance commits, record), the
 *   ratio largest/smallest (goal <= 1.5) and the peak RSS sampled while merging (goal:
 *   independent of base size); then the optimize that follows those merges, per size.
 * - Point lookups against the largest base: p50/p99 in a cold process (a child that opens
 *   the dataset for the first time) and warm, with the bytes the process read per lookup
 *   (`rchar` of /proc/self/io: every byte read from files, cached or not).
 * - Scan rows/s through Sluice's HTTP API (Arrow pages, in-process requests) against
 *   LanceDB's own scan of the same dataset version, in the same run.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { openApi } from '../../functions/app.ts';
import { ensureRedis } from '../../infra/local/redis.ts';
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { lanceDb } from '../../shared/base/lance-module.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger, silentLogger } from '../../shared/log.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import type { TableDef } from '../../shared/table/table-def.ts';
import { deletePrefix } from '../support/redis.ts';
import { benchDir } from './bench-dirs.ts';
import { type BenchResult, progress } from './measure.ts';
import { run as catchUp } from './merge-catch-up.ts';

const BATCH = 100_000;
const MERGED_ROWS = 10_000;
/** Keys each measured merge deletes, besides its upserts. */
const DELETED_KEYS = 100;
/** Lookups stay below the top keys of the base, where the measured merges delete. */
const KEPT_CLEAR = 1000;
const LOOKUPS = 200;
/** Measured merges per base size. */
const MERGE_REPEATS = 7;
const SCAN_PAGE = 1000;

function rows(from: number, count: number, version: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: from + i,
    name: `row-${from + i}-v${version}-${'x'.repeat(24)}`,
    value: (from + i) * version,
  }));
}

async function generation(runtime: Runtime, table: TableDef, batch: RecordBatch, deletes: number[] = []) {
  await runtime.sluice.writes.append(table.name, batch);
  if (deletes.length > 0) await runtime.sluice.writes.delete(table.name, deletes);
  await runtime.sluice.shards.seal(table.name, 0);
  await runtime.sluice.shards.flush(table.name, 0);
}

async function createTable(runtime: Runtime, name: string): Promise<TableDef> {
  return runtime.sluice.tables.create({
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'name', type: 'utf8' },
        { name: 'value', type: 'float64' },
      ],
    },
    primaryKey: ['id'],
    shards: 1,
    settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0, maxGenerationRows: 10_000_000 },
  });
}

/** A table whose base holds `baseRows` rows, merged in batches and then optimized, as the scheduler would. */
async function tableWithBase(runtime: Runtime, name: string, baseRows: number): Promise<TableDef> {
  const table = await createTable(runtime, name);
  for (let from = 1; from <= baseRows; from += BATCH) {
    await generation(runtime, table, jsonRowsToRecordBatch(table.schema, rows(from, BATCH, 1)));
    await runtime.sluice.tableWork.merge(name);
    if ((from - 1) % (10 * BATCH) === 0) progress(`  ${name}: ${from - 1 + BATCH} rows`);
  }
  await runtime.sluice.tableWork.optimize(name);
  return table;
}

/** The phases of one merge, between the steps runMerge reports. */
interface MergeTiming {
  /** Manifests read, the merge planned, its L0 inputs read and reduced, the dataset opened at the recorded version. */
  prepare: number;
  /** The key-filtered delete and the mergeInsert: the Lance commits. */
  lance: number;
  /** The base manifest's compare-and-swap. */
  record: number;
  total: number;
  /** Peak RSS sampled while merging, and how much it grew during the merge. */
  peakRss: number;
  rssGrowth: number;
}

/**
 * Merges repetition `r` into the table's base: 10k rows (half updates, half new keys) and
 * 100 deletes, each repetition on keys of its own.
 */
async function measuredMerge(
  runtime: Runtime,
  table: TableDef,
  baseRows: number,
  r: number,
): Promise<MergeTiming> {
  const updates = rows(1 + r * MERGED_ROWS, MERGED_ROWS / 2, r + 2);
  const inserts = rows(baseRows + 1 + r * MERGED_ROWS, MERGED_ROWS / 2, r + 2);
  const deletes = Array.from({ length: DELETED_KEYS }, (_, i) => baseRows - r * DELETED_KEYS - i);
  await generation(runtime, table, jsonRowsToRecordBatch(table.schema, [...updates, ...inserts]), deletes);
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const marks: Record<string, number> = {};
  const t0 = performance.now();
  const outcome = await runtime.sluice.tableWork.merge(table.name, {
    onStep: (step) => {
      marks[step] = performance.now();
    },
  });
  const end = performance.now();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  if (outcome.merged.length !== 1) throw new Error('the merge merged nothing');
  const prepared = marks.prepared!;
  const committed = marks['lance-committed']!;
  return {
    prepare: (prepared - t0) / 1000,
    lance: (committed - prepared) / 1000,
    record: (end - committed) / 1000,
    total: (end - t0) / 1000,
    peakRss: peak,
    rssGrowth: peak - before,
  };
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const seconds3 = (s: number) => Math.round(s * 1000) / 1000;

function readBytes(): number {
  const line = readFileSync('/proc/self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('rchar:'));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

/** p50/p99 and bytes read per lookup of `count` keys spread over the base. */
async function lookups(runtime: Runtime, table: string, keys: number, count: number, seed: number) {
  const times: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < count; i++) {
    const key = 1 + ((seed + i * 104_729) % (keys - KEPT_CLEAR));
    const before = readBytes();
    const t0 = performance.now();
    const found = await runtime.sluice.reads.lookup(table, key);
    times.push(performance.now() - t0);
    bytes.push(readBytes() - before);
    if (!found) throw new Error(`key ${key} not found`);
  }
  const at = (list: number[], q: number) =>
    [...list].sort((a, b) => a - b)[Math.floor(q * (list.length - 1))]!;
  return {
    p50Ms: Math.round(at(times, 0.5) * 100) / 100,
    p99Ms: Math.round(at(times, 0.99) * 100) / 100,
    bytesPerLookupP50: at(bytes, 0.5),
    bytesPerLookupMax: Math.max(...bytes),
  };
}

/** The first lookup of a process that never opened the dataset, as `--cold-lookup` children report it. */
async function coldLookup(env: NodeJS.ProcessEnv, table: string, keys: number, seed: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/bench/merge.ts', '--cold-lookup', table, String(keys), String(seed)],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out) as { ms: number; bytes: number };
}

async function scanHttp(runtime: Runtime, table: string): Promise<{ rows: number; seconds: number }> {
  const api = openApi(runtime);
  const t0 = performance.now();
  let total = 0;
  let after: string | null = null;
  do {
    const query: string = `limit=${SCAN_PAGE}${after ? `&after=${after}` : ''}`;
    const response = await api.app.request(`/v1/tables/${table}/rows?${query}`, {
      headers: { accept: 'application/vnd.apache.arrow.stream' },
    });
    if (response.status !== 200)
      throw new Error(`scan answered ${response.status}: ${await response.text()}`);
    const { tableFromIPC } = await import('apache-arrow');
    total += tableFromIPC(new Uint8Array(await response.arrayBuffer())).numRows;
    after = response.headers.get('sluice-next');
  } while (after);
  const seconds = (performance.now() - t0) / 1000;
  await api.close();
  return { rows: total, seconds };
}

async function scanLance(
  dir: string,
  table: string,
  version: number,
): Promise<{ rows: number; seconds: number }> {
  const handle = await (await lanceDb().connect(`${dir}/tables/${table}`)).openTable('base');
  await handle.checkout(version);
  const t0 = performance.now();
  const rows = (await handle.query().toArrow()).numRows;
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

export async function* run(): AsyncIterable<BenchResult> {
  yield* catchUp();
  const dir = await benchDir('merge');
  const redis = await ensureRedis(process.env.SLUICE_REDIS_URL ?? 'redis://127.0.0.1:6379', silentLogger);
  const settings = {
    redisUrl: redis.url,
    redisPrefix: `sluice-bench-${process.pid}`,
    storeUrl: `file://${dir}`,
    logLevel: 'silent' as const,
  };
  const config = loadConfig({}, settings);
  const runtime = openRuntime(config, createLogger({ level: 'silent' }), new FsStore(dir));
  const sizes = [100_000, 1_000_000, ...(process.env.SLUICE_BENCH_MERGE_10M === '1' ? [10_000_000] : [])];
  try {
    const tables: TableDef[] = [];
    for (const baseRows of sizes) {
      progress(`building a ${baseRows}-row base`);
      tables.push(await tableWithBase(runtime, `base${baseRows}`, baseRows));
    }
    // Repetitions interleaved across the sizes, in alternating order, so a change of
    // machine load, or going first, weighs on every size alike and the ratio compares
    // merges measured side by side.
    const timings: MergeTiming[][] = sizes.map(() => []);
    for (let r = 0; r < MERGE_REPEATS; r++) {
      progress(`measured merges, repetition ${r + 1} of ${MERGE_REPEATS}`);
      const order = [...sizes.keys()];
      if (r % 2 === 1) order.reverse();
      for (const i of order) timings[i]!.push(await measuredMerge(runtime, tables[i]!, sizes[i]!, r));
    }
    for (const [i, baseRows] of sizes.entries()) {
      const t = timings[i]!;
      const total = median(t.map((m) => m.total));
      yield {
        bench: 'merge',
        case: `merge-10000rows-into-${baseRows}`,
        system: 'sluice',
        rows: MERGED_ROWS,
        deletes: DELETED_KEYS,
        baseRows,
        repeats: t.length,
        seconds: seconds3(total),
        minSeconds: seconds3(Math.min(...t.map((m) => m.total))),
        maxSeconds: seconds3(Math.max(...t.map((m) => m.total))),
        prepareSeconds: seconds3(median(t.map((m) => m.prepare))),
        lanceSeconds: seconds3(median(t.map((m) => m.lance))),
        recordSeconds: seconds3(median(t.map((m) => m.record))),
        rowsPerSec: Math.round(MERGED_ROWS / total),
        peakRssMb: Math.round(Math.max(...t.map((m) => m.peakRss)) / 2 ** 20),
        rssGrowthMb: Math.round(Math.max(...t.map((m) => m.rssGrowth)) / 2 ** 20),
      };
    }
    const ratio = (phase: keyof MergeTiming) =>
      Math.round(
        (median(timings.at(-1)!.map((m) => m[phase])) / median(timings[0]!.map((m) => m[phase]))) * 100,
      ) / 100;
    const fastest = (t: MergeTiming[]) => Math.min(...t.map((m) => m.total));
    yield {
      bench: 'merge',
      case: `merge-10000rows-${sizes.at(-1)}-vs-${sizes[0]}`,
      system: 'ratio',
      ratio: ratio('total'),
      // The fastest repetitions: the least disturbed by other load on the machine.
      fastestRatio: Math.round((fastest(timings.at(-1)!) / fastest(timings[0]!)) * 100) / 100,
      prepareRatio: ratio('prepare'),
      lanceRatio: ratio('lance'),
      goal: 1.5,
    };

    for (const [i, baseRows] of sizes.entries()) {
      const t0 = performance.now();
      await runtime.sluice.tableWork.optimize(tables[i]!.name);
      yield {
        bench: 'merge',
        case: `optimize-after-${MERGE_REPEATS}-merges-${baseRows}`,
        system: 'sluice',
        baseRows,
        seconds: seconds3((performance.now() - t0) / 1000),
      };
    }

    const table = tables.at(-1)!;
    const keys = sizes.at(-1)!;
    progress(`point lookups against the ${keys}-row base`);
    const env = {
      ...process.env,
      SLUICE_REDIS_URL: config.redisUrl,
      SLUICE_REDIS_PREFIX: config.redisPrefix,
      SLUICE_STORE_URL: config.storeUrl,
      SLUICE_LOG_LEVEL: 'silent',
    };
    const cold: Array<{ ms: number; bytes: number }> = [];
    for (let i = 0; i < 9; i++) cold.push(await coldLookup(env, table.name, keys, i * 7919));
    const dataBytes = await datasetBytes(dir, table.name);
    yield {
      bench: 'merge',
      case: `lookup-cold-${keys}`,
      system: 'sluice',
      processes: cold.length,
      p50Ms: Math.round(median(cold.map((c) => c.ms)) * 100) / 100,
      maxMs: Math.round(Math.max(...cold.map((c) => c.ms)) * 100) / 100,
      bytesPerLookupP50: median(cold.map((c) => c.bytes)),
      bytesPerLookupMax: Math.max(...cold.map((c) => c.bytes)),
      datasetBytes: dataBytes,
    };
    await lookups(runtime, table.name, keys, 20, 1);
    yield {
      bench: 'merge',
      case: `lookup-warm-${keys}`,
      system: 'sluice',
      lookups: LOOKUPS,
      ...(await lookups(runtime, table.name, keys, LOOKUPS, 3)),
    };

    progress('scans');
    const version = (await runtime.parts.bases.read(table.name)).lanceVersion!;
    const http = await scanHttp(runtime, table.name);
    const lance = await scanLance(dir, table.name, version);
    yield {
      bench: 'merge',
      case: `scan-${keys}`,
      system: 'sluice-http-arrow',
      rows: http.rows,
      seconds: Math.round(http.seconds * 100) / 100,
      rowsPerSec: Math.round(http.rows / http.seconds),
    };
    yield {
      bench: 'merge',
      case: `scan-${keys}`,
      system: 'lancedb',
      rows: lance.rows,
      seconds: Math.round(lance.seconds * 100) / 100,
      rowsPerSec: Math.round(lance.rows / lance.seconds),
    };
    yield {
      bench: 'merge',
      case: `scan-${keys}`,
      system: 'ratio',
      ratio: Math.round((lance.seconds / http.seconds) * 100) / 100,
    };
  } finally {
    await runtime.close();
    await deletePrefix(redis.url, config.redisPrefix);
    await redis.stop();
  }
}

async function datasetBytes(dir: string, table: string): Promise<number> {
  const { readdir, stat } = await import('node:fs/promises');
  const data = join(dir, 'tables', table, 'base.lance', 'data');
  let total = 0;
  for (const file of await readdir(data)) total += (await stat(join(data, file))).size;
  return total;
}

/** The child side of a cold lookup: one runtime, one lookup, its time and bytes read on stdout. */
async function coldLookupChild(table: string, keys: number, seed: number): Promise<void> {
  const config = loadConfig(process.env);
  const runtime = openRuntime(config, createLogger({ level: 'silent' }));
  await runtime.sluice.tables.describe(table);
  await runtime.parts.bases.read(table);
  // The module's own files are read once per process, not per lookup: loaded before measuring.
  lanceDb();
  const key = 1 + (seed % (keys - KEPT_CLEAR));
  const before = readBytes();
  const t0 = performance.now();
  const found = await runtime.sluice.reads.lookup(table, key);
  const ms = performance.now() - t0;
  const bytes = readBytes() - before;
  if (!found) throw new Error(`key ${key} not found`);
  process.stdout.write(JSON.stringify({ ms, bytes }));
  await runtime.close();
}

if (process.argv[2] === '--cold-lookup') {
  const [table, keys, seed] = process.argv.slice(3);
  await coldLookupChild(table!, Number(keys), Number(seed));
}

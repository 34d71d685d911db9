/**
 * `npm run bench -- merge`: what a merge costs as the base grows, and what pending
 * generations cost a point lookup (I14). Merges 10k rows (half of them updates) into a
 * 100k-row and a 1M-row base in the same run and prints the ratio (goal <= 1.5: a merge
 * must cost what it merges, not what the base holds); then point-lookup latency with 0, 16
 * and 64 pending generations, as ratios against 0.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { ensureRedis } from '../../infra/local/redis.ts';
import { openRuntime, type Runtime } from '../../jobs/runtime.ts';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger, silentLogger } from '../../shared/log.ts';
import { createRedis } from '../../shared/redis/connection.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import type { TableDef } from '../../shared/table/table-def.ts';
import { deleteKeys } from '../support/redis.ts';
import { type BenchResult, progress } from './measure.ts';

const BATCH = 100_000;
const MERGED_ROWS = 10_000;

function rows(from: number, count: number, version: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: from + i,
    name: `row-${from + i}-v${version}-${'x'.repeat(24)}`,
    value: (from + i) * version,
  }));
}

async function generation(runtime: Runtime, table: TableDef, batch: RecordBatch) {
  await runtime.sluice.append(table.name, batch);
  await runtime.sluice.seal(table.name, 0);
  await runtime.sluice.flush(table.name, 0);
}

async function createTable(runtime: Runtime, name: string): Promise<TableDef> {
  return runtime.sluice.catalog.create({
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

/** A table whose base holds `baseRows` rows, merged in batches as the scheduler would. */
async function tableWithBase(runtime: Runtime, name: string, baseRows: number): Promise<TableDef> {
  const table = await createTable(runtime, name);
  for (let from = 1; from <= baseRows; from += BATCH) {
    await generation(runtime, table, jsonRowsToRecordBatch(table.schema, rows(from, BATCH, 1)));
    await runtime.sluice.merge(name);
  }
  while ((await runtime.sluice.compact(name)).run) progress(`  compacted ${name}`);
  return table;
}

/** Median seconds of merging 10k rows (half updates, half new) into the table's base. */
async function mergeSeconds(
  runtime: Runtime,
  table: TableDef,
  baseRows: number,
  repeats: number,
): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const updates = rows(1 + r * MERGED_ROWS, MERGED_ROWS / 2, r + 2);
    const inserts = rows(baseRows + 1 + r * MERGED_ROWS, MERGED_ROWS / 2, r + 2);
    await generation(runtime, table, jsonRowsToRecordBatch(table.schema, [...updates, ...inserts]));
    const t0 = performance.now();
    const outcome = await runtime.sluice.merge(table.name);
    times.push((performance.now() - t0) / 1000);
    if (outcome.merged.length !== 1) throw new Error('the merge merged nothing');
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** p50 of lookups spread over the keys, after a warm-up that loads every run into the read cache. */
async function lookupP50Ms(runtime: Runtime, table: TableDef, keys: number): Promise<number> {
  for (let i = 0; i < 50; i++) await runtime.sluice.lookup(table.name, 1 + ((i * 104_729) % keys));
  const times: number[] = [];
  for (let i = 0; i < 400; i++) {
    const key = 1 + ((i * 7919) % keys);
    const t0 = performance.now();
    await runtime.sluice.lookup(table.name, key);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

async function deletePrefix(url: string, prefix: string): Promise<void> {
  const connection = createRedis({ redisUrl: url });
  await deleteKeys(connection, `${prefix}*`);
  connection.disconnect();
}

export async function* run(): AsyncIterable<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-merge-'));
  const redis = await ensureRedis(process.env.SLUICE_REDIS_URL ?? 'redis://127.0.0.1:6379', silentLogger);
  const config = loadConfig(
    {},
    {
      redisUrl: redis.url,
      redisPrefix: `sluice-bench-${process.pid}`,
      storeUrl: `file://${dir}`,
      logLevel: 'silent',
    },
  );
  const runtime = openRuntime(config, createLogger({ level: 'silent' }), new FsStore(dir));
  try {
    const seconds: Record<string, number> = {};
    for (const baseRows of [100_000, 1_000_000]) {
      progress(`building a ${baseRows}-row base`);
      const table = await tableWithBase(runtime, `base${baseRows}`, baseRows);
      seconds[baseRows] = await mergeSeconds(runtime, table, baseRows, 3);
      yield {
        bench: 'merge',
        case: `merge-10000rows-into-${baseRows}`,
        system: 'sluice',
        rows: MERGED_ROWS,
        baseRows,
        seconds: seconds[baseRows],
        rowsPerSec: Math.round(MERGED_ROWS / seconds[baseRows]!),
      };
    }
    yield {
      bench: 'merge',
      case: 'merge-10000rows-1M-vs-100k',
      system: 'ratio',
      ratio: Math.round((seconds[1_000_000]! / seconds[100_000]!) * 100) / 100,
      goal: 1.5,
    };

    progress('point lookups with pending generations');
    const table = await tableWithBase(runtime, 'lookups', 100_000);
    let pending = 0;
    let baseline = 0;
    for (const target of [0, 16, 64]) {
      for (; pending < target; pending++) {
        const from = 200_000 + pending * 100;
        await generation(runtime, table, jsonRowsToRecordBatch(table.schema, rows(from, 100, 1)));
      }
      const p50Ms = await lookupP50Ms(runtime, table, 100_000);
      if (target === 0) baseline = p50Ms;
      yield {
        bench: 'merge',
        case: `lookup-${target}pending`,
        system: 'sluice',
        pendingGenerations: target,
        p50Ms: Math.round(p50Ms * 1000) / 1000,
        ratioToNoPending: Math.round((p50Ms / baseline) * 100) / 100,
      };
    }
  } finally {
    await runtime.close();
    await deletePrefix(redis.url, config.redisPrefix);
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

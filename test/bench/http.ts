/**
 * What HTTP costs (issue 4): JSON writes, Arrow writes and point lookups through the HTTP
 * API, against the same operations on the domain API in this process — same batches, same
 * concurrency, same kind of deployment — measured in the same run; `ratio` is HTTP rows/s
 * over in-process rows/s.
 *
 * - sluice-http: `npm start`'s process (API and workers, SLUICE_ROLE=all, one bearer token)
 *   as a child on a free port, loaded by autocannon from this process with 16 connections.
 *   Access logs are off (SLUICE_LOG_LEVEL=warn): the in-process side writes none either.
 * - sluice-inprocess: a runtime with the seal and flush workers in this process, 16 async
 *   loops calling it. A JSON write starts from the body text (parse, validate, append), an
 *   Arrow write from the stream bytes (checked decode, append), a lookup ends with JSON rows:
 *   the HTTP path minus HTTP.
 * Each case writes to a fresh table (4 shards); writes rotate over 64 prebuilt batches of
 * distinct keys; lookups hit keys written before the clock starts. Between cases the
 * workers are given time to flush what was written, so no case pays for the one before.
 * On a small machine autocannon shares the cores with the server: `loadAvg1m` says how busy
 * the machine was. BENCH_HTTP_SECONDS (5) bounds each case.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { ensureRedis, freePort } from '../../infra/local/redis.ts';
import { startWorkers } from '../../jobs/workers.ts';
import { openRuntime } from '../../runtime/runtime.ts';
import { decodeArrowStreamForTable, encodeIpcStream } from '../../shared/arrow/ipc.ts';
import {
  type JsonRow,
  jsonRowsToRecordBatch,
  jsonRowsToTable,
  tableToJsonRows,
} from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import { type Config, loadConfig } from '../../shared/config.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { createRedisNamespace } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';
import { benchDir } from './bench-dirs.ts';
import type { BenchResult } from './measure.ts';
import { progress } from './measure.ts';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS) || 5;
const CONNECTIONS = 16;
const BATCH_ROWS = 100;
const BATCHES = 64;
const SHARDS = 4;
const DIM = 8;
const TOKEN = randomBytes(24).toString('base64url');
const ARROW = 'application/vnd.apache.arrow.stream';

const schemaJson = {
  fields: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 'name', type: 'utf8', nullable: true },
    { name: 'score', type: 'float64', nullable: true },
    { name: 'embedding', type: `vector[float32, ${DIM}]`, nullable: true },
  ],
};
const schema = parseTableSchema(schemaJson, ['id']);

function makeRow(id: number): JsonRow {
  return {
    id,
    name: `customer-${String(id).padStart(14, '0')}`,
    score: (id % 1000) / 7,
    embedding: Array.from({ length: DIM }, (_, j) => ((id + j) % 97) / 97),
  };
}

const batches = Array.from({ length: BATCHES }, (_, b) =>
  Array.from({ length: BATCH_ROWS }, (_, i) => makeRow(b * BATCH_ROWS + i + 1)),
);
const jsonBodies = batches.map((rows) => JSON.stringify({ rows }));
const arrowBodies = batches.map((rows) => Buffer.from(encodeIpcStream(jsonRowsToTable(schema, rows))));
const lookupKeys = batches.flat().map((row) => row.id as number);

interface Case {
  name: string;
  rowsPerOp: number;
  /** Before the clock: what the case needs in its table. */
  seed: boolean;
  http(table: string): autocannon.Request;
  inProcess(sluice: Sluice, table: string): () => Promise<unknown>;
}

function rotate<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length]!;
}

const CASES: Case[] = [
  {
    name: `json-write-${BATCH_ROWS}rows-${CONNECTIONS}conn`,
    rowsPerOp: BATCH_ROWS,
    seed: false,
    http: (table) => {
      const body = rotate(jsonBodies);
      return {
        method: 'POST',
        path: `/v1/tables/${table}/rows`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        setupRequest: (req) => ({ ...req, body: body() }),
      };
    },
    inProcess: (sluice, table) => {
      const body = rotate(jsonBodies);
      return () => sluice.writes.append(table, jsonRowsToRecordBatch(schema, JSON.parse(body()).rows));
    },
  },
  {
    name: `arrow-write-${BATCH_ROWS}rows-${CONNECTIONS}conn`,
    rowsPerOp: BATCH_ROWS,
    seed: false,
    http: (table) => {
      const body = rotate(arrowBodies);
      return {
        method: 'POST',
        path: `/v1/tables/${table}/rows`,
        headers: { 'content-type': ARROW, authorization: `Bearer ${TOKEN}` },
        setupRequest: (req) => ({ ...req, body: body() }),
      };
    },
    inProcess: (sluice, table) => {
      const body = rotate(arrowBodies);
      return () => sluice.writes.append(table, decodeArrowStreamForTable(schema, body()));
    },
  },
  {
    name: `point-lookup-${CONNECTIONS}conn`,
    rowsPerOp: 1,
    seed: true,
    http: (table) => {
      const key = rotate(lookupKeys);
      return {
        method: 'GET',
        headers: { authorization: `Bearer ${TOKEN}` },
        setupRequest: (req) => ({ ...req, path: `/v1/tables/${table}/rows?key=${key()}` }),
      };
    },
    inProcess: (sluice, table) => {
      const key = rotate(lookupKeys);
      return async () => {
        const found = await sluice.reads.lookup(table, key());
        return found && tableToJsonRows(schema, found);
      };
    },
  },
];

function figures(
  caseName: string,
  system: string,
  ops: number,
  rowsPerOp: number,
  seconds: number,
  p50: number,
  p99: number,
) {
  const rowsPerSec = Math.round((ops * rowsPerOp) / seconds);
  const ms = (value: number) => Math.round(value * 1000) / 1000;
  progress(
    `http ${caseName} ${system}: ${rowsPerSec.toLocaleString('en-US')} rows/s, p50 ${ms(p50)} ms, p99 ${ms(p99)} ms`,
  );
  return {
    bench: 'http',
    case: caseName,
    system,
    requests: ops,
    rows: ops * rowsPerOp,
    seconds: ms(seconds),
    rowsPerSec,
    requestsPerSec: Math.round(ops / seconds),
    p50Ms: ms(p50),
    p99Ms: ms(p99),
    connections: CONNECTIONS,
    loadAvg1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** `connections` loops calling `op` until the time is up; latency of every call. */
async function drive(
  op: () => Promise<unknown>,
): Promise<{ ops: number; seconds: number; p50: number; p99: number }> {
  const times: number[] = [];
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await op();
        times.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { ops: times.length, seconds, p50: at(0.5), p99: at(0.99) };
}

async function settled(sluice: Sluice, table: string): Promise<void> {
  const def = await sluice.tables.describe(table);
  await waitFor(
    async () => {
      const stats = await sluice.reads.stats(def);
      return stats.unsealedEntries === 0 && stats.sealedGenerations === 0;
    },
    { message: `${table} flushed`, timeoutMs: 60_000, intervalMs: 100 },
  ).catch(() => progress(`http: ${table} not fully flushed after 60 s; going on`));
}

function tableCreate(name: string) {
  return { name, schema: schemaJson, primaryKey: ['id'], shards: SHARDS };
}

async function startServer(config: Config, storeDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const sha256 = createHash('sha256').update(TOKEN).digest('hex');
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: {
      ...process.env,
      SLUICE_HOST: '127.0.0.1',
      SLUICE_PORT: String(port),
      SLUICE_ROLE: 'all',
      SLUICE_REDIS_URL: config.redisUrl,
      SLUICE_REDIS_PREFIX: config.redisPrefix,
      SLUICE_STORE_URL: `file://${storeDir}`,
      SLUICE_TOKENS: JSON.stringify([{ name: 'bench', sha256, scopes: ['read', 'write', 'admin'] }]),
      SLUICE_LOG_LEVEL: 'warn',
      SLUICE_LOG_PRETTY: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/healthz`)).ok, {
    message: 'the HTTP server',
    timeoutMs: 30_000,
  });
  return { url, child };
}

async function post(url: string, path: string, body: unknown): Promise<void> {
  const reply = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(`POST ${path}: ${reply.status} ${await reply.text()}`);
}

export async function* run(): AsyncIterable<BenchResult> {
  const quiet = pino({ level: 'warn' });
  const redis = await ensureRedis(loadConfig().redisUrl, quiet);
  const namespace = createRedisNamespace(redis.url);
  const inDir = await benchDir('http-in');
  const httpDir = await benchDir('http-srv');
  const config = (dir: string, prefix: string) =>
    loadConfig({}, { redisUrl: redis.url, redisPrefix: prefix, storeUrl: `file://${dir}`, logLevel: 'warn' });
  const inConfig = config(inDir, `${namespace.prefix}-in`);
  const runtime = openRuntime(inConfig, quiet);
  const workers = startWorkers(runtime.sluice, ['seal', 'flush']);
  const server = await startServer(config(httpDir, `${namespace.prefix}-srv`), httpDir);
  const httpStats = openRuntime(config(httpDir, `${namespace.prefix}-srv`), quiet);
  try {
    for (const [index, c] of CASES.entries()) {
      const table = `bench_${index}`;
      await runtime.sluice.tables.create(tableCreate(table));
      await post(server.url, '/v1/tables', tableCreate(table));
      if (c.seed) {
        for (const rows of batches) {
          await runtime.sluice.writes.append(table, jsonRowsToRecordBatch(schema, rows));
          await post(server.url, `/v1/tables/${table}/rows`, { rows });
        }
        await settled(runtime.sluice, table);
        await settled(httpStats.sluice, table);
      }

      const measured = await drive(c.inProcess(runtime.sluice, table));
      const baseline = figures(
        c.name,
        'sluice-inprocess',
        measured.ops,
        c.rowsPerOp,
        measured.seconds,
        measured.p50,
        measured.p99,
      );
      yield baseline;
      await settled(runtime.sluice, table);

      const result = await autocannon({
        url: server.url,
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: [c.http(table)],
      });
      const ok = result['2xx'];
      const http = figures(
        c.name,
        'sluice-http',
        ok,
        c.rowsPerOp,
        result.duration,
        result.latency.p50,
        result.latency.p99,
      );
      yield {
        ...http,
        non2xx: result.non2xx,
        errors: result.errors,
        baseline: baseline.system,
        ratio: Math.round((http.rowsPerSec / baseline.rowsPerSec) * 100) / 100,
      };
      await settled(httpStats.sluice, table);
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await httpStats.close();
    await workers.close(5_000);
    await runtime.close();
    await namespace.cleanup();
    await redis.stop();
  }
}

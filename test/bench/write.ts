/**
 * The write path under load (issue 3): acked rows/s and ack latency p50/p99 for JSON and
 * Arrow input, batches of 10 and 1,000 rows, 1/16/64 concurrent writers, group commit on
 * (`wal.groupCommitMs`, default 2) and off (0); Redis round trips and WAL entries per acked
 * write; ack → L0 commit lag. LanceDB JS `table.add` of the same batches at the same
 * concurrency to a local directory is the baseline, measured in the same run just before.
 *
 * - Sluice: a whole Sluice in this process — file store in a temp dir, a Redis prefix of
 *   its own, the seal and flush BullMQ workers running beside the writers, as in a
 *   single-process deployment. Every case gets a fresh table (default shard count), so a
 *   batch of 10 random-looking keys usually fans out to every shard. A JSON write is timed
 *   from its parsed rows (`jsonRowsToRecordBatch` + append: the HTTP path minus HTTP); an
 *   Arrow write from a RecordBatch. The batches are built before the clock starts.
 * - Lag: at most one acked write per millisecond is sampled; a poller reads the shard
 *   manifests every 10 ms and the sample is committed once the WAL cursor of every shard it
 *   wrote has passed its seq. The lag includes the table's `sealDelayMs` (reported beside it).
 *   `l0LagMinMs` (the last writes of a case) is the pipeline's floor; the percentiles also
 *   depend on when the debounced seal fires during a continuous burst, so compare them only
 *   between runs of the same BENCH_WRITE_SECONDS.
 * - Readable: once the lag samples settled, a full scan counts the table; `allAckedReadable`
 *   says whether that equals the acked rows. A field to read, not an assertion (§7).
 * - LanceDB (`test/bench/lancedb/`, its own package so its Arrow ≤ 18.1 stays out of ours;
 *   installed with `npm ci` on first use): JSON cases pass the same row objects, Arrow cases
 *   the same batches re-decoded with LanceDB's own CommonJS Arrow (a second Arrow copy makes
 *   it write 0 rows, so its `countRows()` is reported as well). Group commit is not a
 *   LanceDB notion, so it is measured once per input/batch/writers (`case` without the
 *   `-gc`/`-nogc` suffix; each Sluice line names it as `baselineCase`), twice when several
 *   writers share it: `lancedb` with concurrent adds and `lancedb-serial` with one add at a
 *   time. Sluice lines carry rows/s ratios to both.
 *
 * Every line carries the 1-minute load average at its end (`loadAvg1m`): on a shared
 * machine it says how far to trust the figures.
 *
 * Filter: `npm run bench -- write <regex>…` or BENCH_WRITE_CASES=<regex>,<regex>; a case
 * runs when its name matches any. BENCH_WRITE_SECONDS (3) bounds each case in time,
 * BENCH_WRITE_SYSTEMS=sluice,lancedb picks the systems.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { RecordBatch } from 'apache-arrow';
import { pino } from 'pino';
import { ensureRedis } from '../../infra/local/redis.ts';
import { openRuntime, type Runtime } from '../../jobs/runtime.ts';
import { startWorkers } from '../../jobs/workers.ts';
import { encodeIpcStream } from '../../shared/arrow/ipc.ts';
import { type JsonRow, jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema, type TableSchema } from '../../shared/arrow/schema.ts';
import { loadConfig } from '../../shared/config.ts';
import { isSluiceError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/log.ts';
import { walRedisRoundTrips } from '../../shared/metrics.ts';
import { createRedis } from '../../shared/redis/connection.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import type { TableDef } from '../../shared/table/table-def.ts';
import type { AppendResult, ShardAck } from '../../shared/wal/append.ts';
import { type BenchResult, progress } from './measure.ts';

const INPUTS = ['json', 'arrow'] as const;
const BATCH_ROWS = [10, 1_000] as const;
const WRITERS = [1, 16, 64] as const;
const GROUP_COMMIT = [true, false] as const;

type Input = (typeof INPUTS)[number];

const DIM = 8;
const SECONDS = Number(process.env.BENCH_WRITE_SECONDS) || 3;
/** The other bound of a case: the batches built for it (100k rows of 10-row batches, 400k of 1,000). */
const MAX_BATCHES: Record<number, number> = { 10: 10_000, 1000: 400 };
/** Warm-up rows, written before the clock starts with keys below the measured ones. */
const WARMUP_ROWS = 64;
const LAG_POLL_MS = 10;
const LAG_SAMPLE_EVERY_MS = 1;
const LAG_SETTLE_MS = 30_000;
/** Backpressured writes are retried after this, for as long past the case's end. */
const BACKPRESSURE_PAUSE_MS = 50;
const BACKPRESSURE_GIVE_UP_MS = 30_000;
const SCAN_PAGE = 10_000;

const LANCEDB_DIR = fileURLToPath(new URL('./lancedb/', import.meta.url));

const tableSchema = {
  fields: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 'name', type: 'utf8', nullable: true },
    { name: 'score', type: 'float64', nullable: true },
    { name: 'embedding', type: `vector[float32, ${DIM}]`, nullable: true },
  ],
};

/** `name` is 32 bytes: a prefix, the zero-padded id and a hash, like a typical external id. */
function makeRow(id: number): JsonRow {
  const hash = (Math.imul(id, 2654435761) >>> 0).toString(16).padStart(8, '0');
  return {
    id,
    name: `customer-${String(Math.abs(id)).padStart(14, '0')}-${hash}`,
    score: (id % 1000) / 7,
    embedding: Array.from({ length: DIM }, (_, j) => ((id + j) % 97) / 97),
  };
}

function makeRows(from: number, count: number): JsonRow[] {
  return Array.from({ length: count }, (_, i) => makeRow(from + i));
}

// ---------------------------------------------------------------------------------------
// LanceDB, loaded from its own package through require: the few calls this bench makes.

interface LanceTable {
  add(data: unknown): Promise<unknown>;
  countRows(): Promise<number>;
  close(): void;
}

interface LanceConnection {
  createEmptyTable(name: string, schema: unknown): Promise<LanceTable>;
  close(): void;
}

interface Lance {
  version: string;
  connect(uri: string): Promise<LanceConnection>;
  /** Decodes an IPC stream with LanceDB's Arrow copy. */
  tableFromIPC(bytes: Uint8Array): { schema: unknown; numRows: number };
}

function loadLance(): Lance | null {
  const installed = join(LANCEDB_DIR, 'node_modules', '@lancedb', 'lancedb', 'package.json');
  if (!existsSync(installed)) {
    progress('write: installing @lancedb/lancedb into test/bench/lancedb (first run only)…');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    // stdout of npm goes to stderr: stdout is the bench's JSON lines.
    const result = spawnSync(npm, ['ci', '--prefix', LANCEDB_DIR, '--no-audit', '--no-fund'], {
      stdio: ['ignore', 2, 2],
    });
    if (result.status !== 0 || !existsSync(installed)) {
      progress('write: LanceDB could not be installed; running without the baseline');
      return null;
    }
  }
  const require = createRequire(join(LANCEDB_DIR, 'package.json'));
  const lancedb = require('@lancedb/lancedb') as { connect(uri: string): Promise<LanceConnection> };
  const arrow = require('apache-arrow') as {
    tableFromIPC(bytes: Uint8Array): { schema: unknown; numRows: number };
  };
  const { version } = JSON.parse(readFileSync(installed, 'utf8')) as { version: string };
  return {
    version,
    connect: (uri) => lancedb.connect(uri),
    tableFromIPC: (bytes) => arrow.tableFromIPC(bytes),
  };
}

// ---------------------------------------------------------------------------------------
// The writers: the same loop drives both systems.

interface Drive {
  writes: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
  backpressureRetries: number;
  stoppedBy: 'time' | 'batches';
}

/**
 * `writers` loops take the next batch until `seconds` passed or the batches ran out; each
 * write is timed from its call to its ack. A backpressured write is retried (the time it
 * waited counts in its latency); any other error is counted and the batch dropped.
 */
async function drive<T>(
  writers: number,
  batches: number,
  write: (index: number) => Promise<T>,
  onAck: (result: T, ackAt: number) => void,
): Promise<Drive> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  let backpressureRetries = 0;
  let stoppedBy: Drive['stoppedBy'] = 'time';
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  const loop = async () => {
    for (;;) {
      if (performance.now() >= deadline) return;
      const index = next++;
      if (index >= batches) {
        stoppedBy = 'batches';
        return;
      }
      const t0 = performance.now();
      for (;;) {
        try {
          const result = await write(index);
          const ackAt = performance.now();
          latencies.push(ackAt - t0);
          onAck(result, ackAt);
          break;
        } catch (err) {
          if (isSluiceError(err, 'BACKPRESSURE') && performance.now() < deadline + BACKPRESSURE_GIVE_UP_MS) {
            backpressureRetries++;
            await sleep(BACKPRESSURE_PAUSE_MS);
            continue;
          }
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, loop));
  const seconds = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    writes: latencies.length,
    seconds: round(seconds, 3),
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    backpressureRetries,
    stoppedBy,
  };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

// ---------------------------------------------------------------------------------------
// Ack → L0 commit lag.

interface LagSample {
  ackAt: number;
  /** Shards of the write whose WAL cursor has not passed its seq yet. */
  waiting: number;
  committedAt: number | null;
}

class CommitLag {
  private readonly waiting = new Map<number, { seq: number; sample: LagSample }[]>();
  private readonly samples: LagSample[] = [];
  private lastSampleAt = Number.NEGATIVE_INFINITY;
  private running = true;
  private readonly polling: Promise<void>;

  constructor(private readonly walCursor: (shard: number) => Promise<number>) {
    this.polling = this.poll();
  }

  offer(ackAt: number, shards: readonly ShardAck[]): void {
    if (ackAt - this.lastSampleAt < LAG_SAMPLE_EVERY_MS) return;
    this.lastSampleAt = ackAt;
    const sample: LagSample = { ackAt, waiting: shards.length, committedAt: null };
    this.samples.push(sample);
    for (const { shard, seq } of shards) {
      const list = this.waiting.get(shard);
      if (list) list.push({ seq, sample });
      else this.waiting.set(shard, [{ seq, sample }]);
    }
  }

  /** Waits (bounded) until every sample committed, then stops polling. */
  async settle(): Promise<{
    l0LagMinMs: number;
    l0LagP50Ms: number;
    l0LagP99Ms: number;
    l0LagSamples: number;
    l0LagUnresolved: number;
  }> {
    const deadline = performance.now() + LAG_SETTLE_MS;
    while (this.samples.some((s) => s.committedAt === null) && performance.now() < deadline) {
      await sleep(LAG_POLL_MS);
    }
    this.running = false;
    await this.polling;
    const lags = this.samples
      .filter((s) => s.committedAt !== null)
      .map((s) => s.committedAt! - s.ackAt)
      .sort((a, b) => a - b);
    return {
      l0LagMinMs: round(percentile(lags, 0), 1),
      l0LagP50Ms: round(percentile(lags, 0.5), 1),
      l0LagP99Ms: round(percentile(lags, 0.99), 1),
      l0LagSamples: this.samples.length,
      l0LagUnresolved: this.samples.length - lags.length,
    };
  }

  private async poll(): Promise<void> {
    while (this.running) {
      await sleep(LAG_POLL_MS);
      for (const [shard, list] of this.waiting) {
        if (list.length === 0) continue;
        let cursor: number;
        try {
          cursor = await this.walCursor(shard);
        } catch {
          continue;
        }
        const now = performance.now();
        // Entries offered while the manifest was read are in `list` too; none is lost.
        const still = list.filter((entry) => {
          if (entry.seq > cursor) return true;
          if (--entry.sample.waiting === 0) entry.sample.committedAt = now;
          return false;
        });
        this.waiting.set(shard, still);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// One Sluice per case: temp-dir file store, own Redis prefix, seal + flush workers.

interface SluiceUnderTest {
  runtime: Runtime;
  close(): Promise<void>;
}

async function openSluice(redisUrl: string, groupCommit: boolean, log: Logger): Promise<SluiceUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-write-'));
  const prefix = `sluice-bench-${randomBytes(6).toString('hex')}`;
  const config = loadConfig(process.env, {
    redisUrl,
    redisPrefix: prefix,
    storeUrl: `file://${dir}`,
    logLevel: log.level as 'warn',
    wal: { groupCommit },
  });
  const runtime = openRuntime(config, log, new FsStore(dir));
  const workers = startWorkers(runtime.sluice, ['seal', 'flush']);
  return {
    runtime,
    async close() {
      await workers.close(2_000);
      await runtime.close();
      const admin = createRedis(redisUrl);
      try {
        for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 1000 })) {
          if ((keys as string[]).length > 0) await admin.unlink(...(keys as string[]));
        }
      } finally {
        admin.disconnect();
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every Redis round trip the WAL writers of this process made so far, as its metric counts them. */
async function redisRoundTrips(): Promise<number> {
  const { values } = await walRedisRoundTrips.get();
  return values.reduce((sum, v) => sum + v.value, 0);
}

async function countRows(sluice: Sluice, table: string): Promise<number> {
  let rows = 0;
  let after: string | null = null;
  do {
    const page = await sluice.scan(table, { limit: SCAN_PAGE, after });
    rows += page.rows.numRows;
    after = page.next;
  } while (after);
  return rows;
}

interface Batches {
  input: Input;
  batchRows: number;
  json: JsonRow[][];
  /** Sluice's Arrow (apache-arrow 21), built from `json`. */
  arrow: RecordBatch[];
  /** The same batches in LanceDB's Arrow copy. */
  lance: unknown[];
}

interface Case {
  name: string;
  input: Input;
  batchRows: number;
  writers: number;
  groupCommit: boolean;
}

async function runSluice(c: Case, batches: Batches, redisUrl: string, log: Logger): Promise<BenchResult> {
  const sut = await openSluice(redisUrl, c.groupCommit, log);
  try {
    const { sluice } = sut.runtime;
    const table: TableDef = await sluice.catalog.create({
      name: c.name,
      schema: tableSchema,
      primaryKey: ['id'],
    });
    await sluice.append(c.name, jsonRowsToRecordBatch(table.schema, makeRows(-WARMUP_ROWS, WARMUP_ROWS)));

    const lag = new CommitLag(async (shard) => (await sluice.manifests.read(c.name, shard)).walCursor);
    const walEntries = new Set<string>();
    let rows = 0;
    const roundTripsBefore = await redisRoundTrips();
    const write =
      c.input === 'json'
        ? (i: number) => sluice.append(c.name, jsonRowsToRecordBatch(table.schema, batches.json[i]))
        : (i: number) => sluice.append(c.name, batches.arrow[i]!);
    const driven = await drive<AppendResult>(c.writers, batches.json.length, write, (result, ackAt) => {
      rows += result.acked;
      for (const { shard, seq } of result.shards) walEntries.add(`${shard}/${seq}`);
      lag.offer(ackAt, result.shards);
    });
    const roundTrips = (await redisRoundTrips()) - roundTripsBefore;
    const lagFigures = await lag.settle();
    const readableRows = (await countRows(sluice, c.name)) - WARMUP_ROWS;
    const perWrite = (n: number) => (driven.writes === 0 ? null : round(n / driven.writes, 2));
    return {
      bench: 'write',
      case: c.name,
      system: 'sluice',
      input: c.input,
      batchRows: c.batchRows,
      writers: c.writers,
      groupCommit: sluice.config.wal.groupCommit,
      shards: table.shards,
      rows,
      writes: driven.writes,
      seconds: driven.seconds,
      rowsPerSec: Math.round(rows / driven.seconds),
      p50Ms: driven.p50Ms,
      p99Ms: driven.p99Ms,
      redisRoundTripsPerWrite: perWrite(roundTrips),
      walEntriesPerWrite: perWrite(walEntries.size),
      ...lagFigures,
      sealDelayMs: table.settings.sealDelayMs,
      readableRows,
      allAckedReadable: readableRows === rows,
      errors: driven.errors,
      ...(driven.firstError === undefined ? {} : { firstError: driven.firstError }),
      backpressureRetries: driven.backpressureRetries,
      stoppedBy: driven.stoppedBy,
      loadAvg1m: round(loadavg()[0]!, 1),
    };
  } finally {
    await sut.close();
  }
}

/**
 * `concurrent`: every writer calls `table.add` when it likes, as Sluice's writers append;
 * LanceDB resolves the concurrent commits itself. `serial`: the same writers, but one add
 * at a time (a writer's latency includes its wait), LanceDB's single-writer pattern.
 */
async function runLance(
  c: Group,
  batches: Batches,
  lance: Lance,
  schema: unknown,
  adds: 'concurrent' | 'serial',
): Promise<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-bench-lancedb-'));
  const db = await lance.connect(dir);
  try {
    const table = await db.createEmptyTable('bench', schema);
    try {
      await table.add(makeRows(-WARMUP_ROWS, WARMUP_ROWS));
      const data = c.input === 'json' ? batches.json : batches.lance;
      let rows = 0;
      let turn: Promise<unknown> = Promise.resolve();
      const add = (i: number) => {
        if (adds === 'concurrent') return table.add(data[i]);
        const mine = turn.then(() => table.add(data[i]));
        turn = mine.catch(() => undefined);
        return mine;
      };
      const driven = await drive(c.writers, data.length, add, () => {
        rows += c.batchRows;
      });
      const readableRows = (await table.countRows()) - WARMUP_ROWS;
      return {
        bench: 'write',
        case: c.name,
        system: adds === 'concurrent' ? 'lancedb' : 'lancedb-serial',
        version: lance.version,
        input: c.input,
        batchRows: c.batchRows,
        writers: c.writers,
        adds,
        rows,
        writes: driven.writes,
        seconds: driven.seconds,
        rowsPerSec: Math.round(rows / driven.seconds),
        p50Ms: driven.p50Ms,
        p99Ms: driven.p99Ms,
        readableRows,
        allAckedReadable: readableRows === rows,
        errors: driven.errors,
        ...(driven.firstError === undefined ? {} : { firstError: driven.firstError }),
        stoppedBy: driven.stoppedBy,
        loadAvg1m: round(loadavg()[0]!, 1),
      };
    } finally {
      table.close();
    }
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function buildBatches(input: Input, batchRows: number, lance: Lance | null, schema: TableSchema): Batches {
  const count = MAX_BATCHES[batchRows]!;
  const json = Array.from({ length: count }, (_, i) => makeRows(i * batchRows, batchRows));
  const arrow = input === 'arrow' ? json.map((rows) => jsonRowsToRecordBatch(schema, rows)) : [];
  const lanceBatches = lance ? arrow.map((batch) => lance.tableFromIPC(encodeIpcStream(batch))) : [];
  return { input, batchRows, json, arrow, lance: lanceBatches };
}

export async function* run(): AsyncIterable<BenchResult> {
  const systems = new Set(
    (process.env.BENCH_WRITE_SYSTEMS ?? 'sluice,lancedb').split(',').map((s) => s.trim()),
  );
  const groups = selectGroups();
  const cases = groups.reduce((n, g) => n + g.cases.length, 0);
  progress(
    `write: ${cases} cases in ${groups.length} groups, ≤${SECONDS}s each, systems ${[...systems].join(',')}`,
  );

  const log = pino({ level: process.env.SLUICE_LOG_LEVEL || 'warn' }, pino.destination(2));
  const lance = systems.has('lancedb') ? loadLance() : null;
  const redis = systems.has('sluice')
    ? await ensureRedis(process.env.SLUICE_REDIS_URL || 'redis://127.0.0.1:6379', log)
    : null;
  try {
    const schema = parseTableSchema(tableSchema, ['id']);
    const lanceSchema = lance
      ? lance.tableFromIPC(encodeIpcStream(jsonRowsToRecordBatch(schema, makeRows(0, 1)))).schema
      : null;

    let batches: Batches | null = null;
    for (const group of groups) {
      if (batches?.input !== group.input || batches.batchRows !== group.batchRows) {
        batches = null;
        const t0 = performance.now();
        batches = buildBatches(group.input, group.batchRows, lance, schema);
        progress(
          `write: built ${group.input} batches of ${group.batchRows} rows in ${Math.round(performance.now() - t0)} ms`,
        );
      }
      let concurrent: BenchResult | null = null;
      let serial: BenchResult | null = null;
      if (lance && lanceSchema) {
        concurrent = await runLance(group, batches, lance, lanceSchema, 'concurrent');
        report(concurrent);
        yield concurrent;
        // One writer: serialized adds are the same thing, measured once.
        serial = concurrent;
        if (group.writers > 1) {
          serial = await runLance(group, batches, lance, lanceSchema, 'serial');
          report(serial);
          yield serial;
        }
      }
      for (const c of group.cases) {
        if (!redis) continue;
        const result = await runSluice(c, batches, redis.url, log);
        const ratio = (baseline: BenchResult | null) =>
          baseline ? round((result.rowsPerSec as number) / (baseline.rowsPerSec as number), 2) : null;
        const compared =
          concurrent === null
            ? result
            : {
                ...result,
                baseline: 'lancedb',
                baselineCase: group.name,
                ratioToBaseline: ratio(concurrent),
                ratioToSerialBaseline: ratio(serial),
              };
        report(compared);
        yield compared;
      }
    }
  } finally {
    await redis?.stop();
  }
}

interface Group {
  /** `json-1000rows-16writers`: the LanceDB lines' case; group commit does not apply to it. */
  name: string;
  input: Input;
  batchRows: number;
  writers: number;
  cases: Case[];
}

/** The cases picked by the filter, grouped by what the LanceDB baseline depends on. */
function selectGroups(): Group[] {
  const patterns = [...process.argv.slice(3), ...(process.env.BENCH_WRITE_CASES ?? '').split(',')]
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => new RegExp(p));
  const selected = (name: string) => patterns.length === 0 || patterns.some((p) => p.test(name));
  const groups: Group[] = [];
  for (const input of INPUTS) {
    for (const batchRows of BATCH_ROWS) {
      for (const writers of WRITERS) {
        const name = `${input}-${batchRows}rows-${writers}writers`;
        const cases = GROUP_COMMIT.map((groupCommit) => ({
          name: `${name}-${groupCommit ? 'gc' : 'nogc'}`,
          input,
          batchRows,
          writers,
          groupCommit,
        })).filter((c) => selected(c.name));
        if (cases.length > 0) groups.push({ name, input, batchRows, writers, cases });
      }
    }
  }
  return groups;
}

function report(r: BenchResult): void {
  const lag = r.l0LagP50Ms === undefined ? '' : `, L0 lag p50 ${r.l0LagP50Ms} ms`;
  const ratio = r.ratioToBaseline === undefined ? '' : `, ×${r.ratioToBaseline} of lancedb`;
  progress(
    `write ${r.case} ${r.system}: ${Number(r.rowsPerSec).toLocaleString('en-US')} rows/s, ` +
      `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${lag}${ratio}`,
  );
}

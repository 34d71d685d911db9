/**
 * The write path at the physical limit (issues 12 and 33): acked rows/s and ack latency
 * p50/p99 for JSON and Arrow input, batches of 10 and 1,000 rows, 1/16/64 concurrent
 * writers, on a local file store, and for Arrow input on an S3-protocol endpoint with S3
 * Standard-like (`-s3std-`) and S3 Express-like (`-s3express-`) latency: the project's S3
 * test server in a process of its own, which delays every request it serves
 * (write-stores.ts). Every line says whether its acks survive power loss (`durable`): on the
 * local store only Sluice's and the floor's do (LanceDB does not fsync); on S3 every
 * system's ack waits for the endpoint's answer to its PUTs.
 *
 * Systems, one line per case and system, all measured in the same run and side by side in
 * time: the systems of a case take turns in slices of its time (write-slices.ts), so a slow
 * phase of the machine weighs on all of them alike. BENCH_WRITE_SLICES sets the number of
 * turns (default one per two seconds of the case); a Sluice slice ends once every entry it
 * acked is in L0, so its flushes do not run in the next system's slice.
 * - `sluice` (`-gc` and `-nogc` cases: group commit on and off; S3 cases `-gc` only): a whole
 *   Sluice per case — its store (the file store in a temp dir, or Sluice's S3 store on a
 *   prefix of the endpoint, as `openStore` builds them) behind the counting, fault-injecting
 *   store, a Redis prefix of its own — with the writers in this process and the seal and
 *   flush workers, as deployed, in a process of their own (write-workers.ts) on the same
 *   store, Redis prefix and configuration; a flush then takes none of the writers' CPU and
 *   never blocks their event loop.
 *   BENCH_WRITE_WORKERS=inline (default `process`) runs them beside the writers in this
 *   process instead, which shows what sharing a process with the flushes costs the writers;
 *   BENCH_WRITE_WORKERS=paused stops their process while a Sluice slice writes and continues
 *   it after (`BenchWorkers.whileWriting`), which shows what sharing the machine's cores and
 *   disk with the seal and flush costs the acks (no freshness case runs then: its L0 lag
 *   would count the pause); every Sluice line says which (`workers`). Every case gets a
 *   fresh table: the local cases run on one of the default shard count (no suffix) and on
 *   one of 4 shards (`-4shards`), or of one shard (`-1shard`) if 4 is the default, the
 *   MemWAL baseline with the same count; the S3 cases always name theirs: 16 and 64 writers
 *   on 1 and 4 shards, on 16 as well for 10-row batches (Sluice and the floor only), and a
 *   lone writer of 10 rows (a Lambda function handles one request at a time) on 1 and 4.
 *   A JSON write is timed from its parsed rows (`jsonRowsToRecordBatch` + append: the HTTP
 *   path minus HTTP), an Arrow write from a RecordBatch.
 * - `floor`, `floor-nosync`: a bare put-if-absent of the same bytes (the batch's WAL entry,
 *   one entry for the whole batch) to the same store, one per write, at the same
 *   concurrency; with and without fsync (on S3 `floor` only, through Sluice's S3 store).
 * - `lancedb`, `lancedb-serial` (local only), `lancedb-memwal` (write-lance.ts): LanceDB
 *   writes through its own object store code, to a temp dir or to a prefix of the S3
 *   endpoint; no latency can be injected into its local file system. Each gets the case's
 *   input: JSON rows, which LanceDB converts itself, or Arrow. Its MemWAL writer takes the
 *   endpoint from the `AWS_*` environment, which the bench sets for its one S3 server.
 * Each Sluice line names its baselines' case (`baselineCase`) and carries its rows/s ratio to
 * each baseline and its latency ratios to the floor.
 *
 * Also on each Sluice line: Redis round trips per acked write (total, per shard touched, and
 * on the ack path) from the writer's metric; WAL entries per write; store requests (PUT, GET,
 * LIST) per 1,000 acked rows for write + seal + flush, counted until every acked entry is in
 * L0 (the writers' requests and those of the workers' process over the same window), and for
 * the merge that follows, which runs in this process (`mergeRequestsPer1000Rows`, gc cases
 * but freshness; on the local store Lance's own writes to the base table do not pass through
 * Sluice's store and are not in it, on S3 the server's counts of them are added); the peak
 * RSS of this process during the case (it also holds the case's prebuilt batches, reported
 * as `rssBeforeMb`) and of the workers' process until every acked entry is in L0
 * (`workerPeakRssMb`, null inline); the rows/s that reached L0 (`l0RowsPerSec`: acked rows
 * over the time from the case's start until all of them were in L0); on freshness lines only,
 * whose poller reads the manifests while the writers write (commit-lag.ts), ack → L0 commit
 * lag, with how long the poller's rounds took (`l0PollP50Ms`, `l0PollP99Ms`: a lag may hold
 * up to one round of it); and how the workers' seal and flush jobs ran until
 * then (`workerJobs`, by queue: run time, lateness against when each was due, and the spacing
 * of one shard's starts, p50 and p99; job-times.ts). `freshness-…` cases run the same writers on the
 * 16-writer local case of the default shard count and on the 16-writer S3 cases of 1 and 4
 * shards (both batch sizes, both profiles), paced at half of the peak the case's `-gc` line
 * measured just before: its acked rows/s, or its `l0RowsPerSec` where the flush fell behind
 * the acks. An S3 freshness line adds issue 33's goal for it: `l0LagGoalMs`, the table's
 * `sealDelayMs` + 5 × the profile's median latency (`endpointMedianMs`), `l0LagP99ToGoal`,
 * and `l0LagGoalHolds` (p99 within it and every ack in L0).
 *
 * Every S3 line also carries `putsPerWrite`: WAL PUTs per acked write request, as the
 * server counted them in the system's WAL directories (`lancedb`, which has no WAL: every
 * PUT of its adds); `putsPer1000Rows` with `putsPer1000RowsCovers` saying which stages it
 * counts — Sluice write + seal + flush + merge (`putsPer1000RowsByStage` splits them), the
 * MemWAL write + the flush of its memtables when its writers close (its merge into the base
 * is not run), `lancedb` and the floor the write; `requestsPer1000Rows` for the same; and
 * `dollarsPerMillionWrites` for those requests at S3 Standard and S3 Express One Zone
 * request prices (`S3_PRICES`). Sluice's lines add its WAL puts' own p50/p99 as the writers
 * saw them (`walPutP50Ms`, `walPutP99Ms`): what of an ack is the endpoint's. Every Sluice
 * line also splits its acks into the WAL writer's phases (`ackPhases`: mean, p50 and p99 of
 * group, seq, put, settle and shards; ack-phases.ts), which say where an ack above the
 * floor waited.
 *
 * Every line says what the machine's CPUs did while its writers wrote (`machineCpu`,
 * machine-cpu.ts).
 *
 * Filter: `npm run bench -- write <regex>…` or BENCH_WRITE_CASES=<regex>,<regex>; a group
 * runs when its name or one of its Sluice cases matches any (`s3` picks every S3 case, the
 * freshness ones too; a freshness case is selected by `freshness-<group>`, without `-gc`).
 * BENCH_WRITE_SECONDS (2: the quick mode for development; 10 for figures to report) bounds
 * each case in time; BENCH_WRITE_SYSTEMS (default all: sluice,lancedb,floor) picks the
 * systems; BENCH_WRITE_WORKERS (process | inline | paused) places the workers;
 * BENCH_WRITE_ARRIVALS (burst | turns, write-drive.ts) says how writers acked at once come
 * back; BENCH_WRITE_WAL_LANE (table | shard, default table) gives Sluice's tables one WAL lane
 * (an entry per request, docs/table-wal-lane.md) or one per shard; BENCH_WRITE_FRESHNESS_PACE
 * (writes/s) paces every freshness case at that rate instead of half its peak, so that two runs
 * compare at one load. Every line says which.
 * BENCH_WRITE_WORKERS_CPU_PROF=<dir> profiles the workers' process of every case
 * (write-worker-process.ts); run the bench as `node --cpu-prof --import tsx
 * test/bench/run.ts write …` to profile the writers too.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { RecordBatch } from 'apache-arrow';
import { pino } from 'pino';
import { ensureRedis } from '../../infra/local/redis.ts';
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { type JsonRow, jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema, type TableSchema } from '../../shared/arrow/schema.ts';
import type { Logger } from '../../shared/log.ts';
import { ShardManifestStore } from '../../shared/lsm/shard-manifest.ts';
import { walRedisRoundTrips } from '../../shared/metrics.ts';
import { createRedis } from '../../shared/redis/connection.ts';
import type { Sluice } from '../../shared/sluice.ts';
import type { FaultyStore } from '../../shared/store/faulty-store.ts';
import type { ObjectStore } from '../../shared/store/object-store.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { hintsFor } from '../../shared/store/versioned-document.ts';
import { DEFAULT_SHARDS, type TableDef, type WalLane } from '../../shared/table/table-def.ts';
import type { AppendResult } from '../../shared/wal/append.ts';
import { encodeWalEntry, OP_UPSERT } from '../../shared/wal/wal-entry.ts';
import { deleteKeys } from '../support/redis.ts';
import { startS3Server } from '../support/s3-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { AckPhases } from './ack-phases.ts';
import { CommitLag } from './commit-lag.ts';
import { type BenchResult, progress } from './measure.ts';
import { type WriteSluiceOptions, writeSluiceConfig } from './write-config.ts';
import { arrivalsOf, type Drive, Driver, peakRss, percentile, round } from './write-drive.ts';
import {
  Lance,
  type LanceContender,
  type LanceHome,
  type LanceSystem,
  lanceS3Environment,
  lanceStorageOptions,
  localLanceHome,
  memwalSchema,
  openLanceAdd,
  openLanceMemwal,
  SHARD_COLUMN,
  type ShardedBatch,
  shardBatch,
} from './write-lance.ts';
import { type Contender, slicesOf, takeTurns } from './write-slices.ts';
import {
  addRequests,
  type BenchPlace,
  type BenchS3,
  benchPlace,
  dollarsPerMillionWrites,
  durableFloor,
  type FloorPut,
  NO_REQUESTS,
  noSyncFloor,
  openBenchStore,
  type RequestCounts,
  requestCounts,
  requestsBetween,
  requestsSince,
  S3_LATENCY,
  type S3Profile,
  STORE_PROFILES,
  type StoreProfile,
  s3EndpointOf,
  serverRequests,
  timingWalPuts,
} from './write-stores.ts';
import {
  type BenchWorkers,
  inlineWorkers,
  spawnWorkers,
  type WorkersSample,
  workerLayout,
} from './write-worker-process.ts';

const INPUTS = ['json', 'arrow'] as const;
const BATCH_ROWS = [10, 1_000] as const;
const WRITERS = [1, 16, 64] as const;

type Input = (typeof INPUTS)[number];

const DIM = 8;
const SECONDS = Number(process.env.BENCH_WRITE_SECONDS) || 2;
const SLICES = slicesOf(process.env.BENCH_WRITE_SLICES || undefined, SECONDS);
const WORKERS = workerLayout(process.env.BENCH_WRITE_WORKERS || undefined);
const ARRIVALS = arrivalsOf(process.env.BENCH_WRITE_ARRIVALS || undefined);
const WAL_LANE = walLaneOf(process.env.BENCH_WRITE_WAL_LANE || undefined);
const FRESHNESS_PACE = paceOf(process.env.BENCH_WRITE_FRESHNESS_PACE || undefined);
/** The batches built per size, of distinct keys (60k rows of 10-row batches, 400k of 1,000); writes go round them. */
const BATCHES: Record<number, number> = { 10: 6_000, 1000: 400 };
/** Warm-up rows, written before the clock starts with keys below the measured ones. */
const WARMUP_ROWS = 64;
/**
 * Sluice's warm-up, in L0 before the clock starts: the workers' process is new for every
 * case, and a flush of a generation this size warms its JIT as a long-running worker's is.
 */
const SLUICE_WARMUP_ROWS = 50_000;
const WARMUP_FLUSH_TIMEOUT_MS = 60_000;
const SCAN_PAGE = 10_000;
const MAX_MERGE_PASSES = 64;

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

interface Batches {
  batchRows: number;
  json: JsonRow[][];
  /** Sluice's Arrow (apache-arrow 21), built from `json`. */
  arrow: RecordBatch[];
  /** The bytes a one-write WAL entry of each batch holds: what the floor puts. */
  walBytes: Uint8Array[];
}

/**
 * Batches in LanceDB's forms, built for one group's LanceDB runs and dropped after, so
 * their heap does not weigh on the other systems: the Arrow batches (in LanceDB's Arrow
 * copy), and the rows per shard with the shard column for the MemWAL baseline, in the
 * case's input. At most LANCE_BATCHES of them; the writers go round them as round Sluice's.
 */
interface LanceBatches {
  arrow: unknown[];
  memwal: ShardedBatch[];
}

const LANCE_BATCHES: Record<number, number> = { 10: 2_000, 1000: 400 };

function buildLanceBatches(lance: Lance, batches: Batches, group: Group, schema: TableSchema): LanceBatches {
  const count = Math.min(batches.json.length, LANCE_BATCHES[batches.batchRows]!);
  return {
    arrow: group.input === 'arrow' ? batches.arrow.slice(0, count).map((b) => lance.fromSluice(b)) : [],
    memwal: batches.json
      .slice(0, count)
      .map((rows) => shardBatch(lance, schema, group.shards, rows, group.input)),
  };
}

/** Sluice's forms of one batch size's batches, built once for its JSON and Arrow cases. */
function buildBatches(batchRows: number, schema: TableSchema): Batches {
  const count = BATCHES[batchRows]!;
  const json = Array.from({ length: count }, (_, i) => makeRows(i * batchRows, batchRows));
  const arrow = json.map((rows) => jsonRowsToRecordBatch(schema, rows));
  return {
    batchRows,
    json,
    arrow,
    walBytes: arrow.map((batch) => encodeWalEntry(schema, [{ batch, op: OP_UPSERT }])),
  };
}

// ---------------------------------------------------------------------------------------
// One Sluice per case.

interface SluiceUnderTest {
  runtime: Runtime;
  store: FaultyStore;
  workers: BenchWorkers;
  /** Reads manifests past the counting store, for the lag poller. */
  observer: ShardManifestStore;
  place: BenchPlace;
  /** Durations of the writers' WAL puts (S3 only: `timingWalPuts`), in ms. */
  walPutMs: number[];
  close(): Promise<void>;
}

async function openSluice(
  redisUrl: string,
  groupCommit: boolean,
  s3: BenchS3 | null,
  log: Logger,
): Promise<SluiceUnderTest> {
  const place = await benchPlace('sluice', s3);
  const redisPrefix = `sluice-bench-${randomBytes(6).toString('hex')}`;
  const options: WriteSluiceOptions = {
    location: place.location,
    redisUrl,
    redisPrefix,
    groupCommit,
    logLevel: log.level as WriteSluiceOptions['logLevel'],
  };
  const config = writeSluiceConfig(options);
  const store = openBenchStore(place.location);
  const timed = timingWalPuts(store);
  const runtime = openRuntime(config, log, timed.store);
  let workers: BenchWorkers;
  try {
    workers = WORKERS === 'inline' ? inlineWorkers(runtime.sluice) : await spawnWorkers(options, WORKERS);
  } catch (err) {
    await runtime.close();
    await place.release();
    throw err;
  }
  // A store of its own, uncounted: on S3 its reads still reach the endpoint, which is why
  // Sluice's pipeline is counted in process (`requestCounts`), not by the server.
  const observerStore: ObjectStore = openStore(config);
  const observer = new ShardManifestStore(observerStore, hintsFor(config.scheduler.gcGraceSeconds * 1000));
  return {
    runtime,
    store,
    workers,
    observer,
    place,
    walPutMs: timed.walPutMs,
    async close() {
      try {
        await workers.close();
        await runtime.close();
        const admin = createRedis({ redisUrl });
        try {
          await deleteKeys(admin, `${redisPrefix}*`);
        } finally {
          admin.disconnect();
        }
      } finally {
        await observerStore.close();
        await place.release();
      }
    },
  };
}

/** Waits until every entry of `ack` is flushed to L0. */
async function inL0(sut: SluiceUnderTest, table: string, ack: AppendResult): Promise<void> {
  for (const { shard, seq } of ack.shards) {
    await waitFor(async () => (await sut.observer.read(table, shard)).walCursor >= seq, {
      message: `the warm-up of shard ${shard} in L0`,
      timeoutMs: WARMUP_FLUSH_TIMEOUT_MS,
    });
  }
}

/** Redis round trips the WAL writers of this process made so far, by step. */
async function roundTrips(): Promise<{ total: number; allocate: number }> {
  const { values } = await walRedisRoundTrips.get();
  return {
    total: values.reduce((sum, v) => sum + v.value, 0),
    allocate: values.filter((v) => v.labels.step === 'allocate').reduce((sum, v) => sum + v.value, 0),
  };
}

async function countRows(sluice: Sluice, table: string): Promise<number> {
  let rows = 0;
  let after: string | null = null;
  do {
    const page = await sluice.reads.scan(table, { limit: SCAN_PAGE, after });
    rows += page.rows.numRows;
    after = page.next;
  } while (after);
  return rows;
}

/** Merges until no committed generation is left unmerged (bounded). */
async function mergeAll(sluice: Sluice, table: string): Promise<boolean> {
  for (let pass = 0; pass < MAX_MERGE_PASSES; pass++) {
    const outcome = await sluice.tableWork.merge(table);
    if (outcome.merged.length === 0) return true;
  }
  return false;
}

function per1000(counts: RequestCounts, rows: number): RequestCounts | null {
  if (rows === 0) return null;
  const scale = (n: number) => round((n * 1000) / rows, 3);
  return { put: scale(counts.put), get: scale(counts.get), list: scale(counts.list) };
}

function sortedMs(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Directories of WAL entries: Sluice's `shards/{s}/wal/`, the floor's `floor/wal/`, the MemWAL's `_mem_wal/{shard}/wal/`. */
const WAL_DIRS = /\/wal\/$/;
/** Where Lance keeps Sluice's base table (its dataset and the connection's own `__manifest`). */
const BASE_DIRS = /\/(base\.lance|__manifest)\//;

/** What every S3 line says about requests and their price. */
interface RequestFigures {
  /** WAL PUTs per acked write request (`lancedb`, which has no WAL: every PUT of the write). */
  putsPerWrite: number | null;
  /** PUTs of the whole pipeline measured (`putsPer1000RowsCovers`) per 1,000 acked rows. */
  putsPer1000Rows: number | null;
  putsPer1000RowsCovers: string;
  requestsPer1000Rows: RequestCounts | null;
  dollarsPerMillionWrites: { s3Standard: number; s3Express: number } | null;
}

function requestFigures(
  driven: Drive,
  rows: number,
  walPuts: number,
  requests: RequestCounts,
  covers: string,
): RequestFigures {
  return {
    putsPerWrite: driven.writes === 0 ? null : round(walPuts / driven.writes, 3),
    putsPer1000Rows: rows === 0 ? null : round((requests.put * 1000) / rows, 3),
    putsPer1000RowsCovers: covers,
    requestsPer1000Rows: per1000(requests, rows),
    dollarsPerMillionWrites: dollarsPerMillionWrites(requests, driven.writes),
  };
}

interface SluiceCase {
  name: string;
  group: Group;
  groupCommit: boolean;
  /** Paced to this many writes/s (freshness cases). */
  writesPerSecond?: number;
  /** How long it writes; BENCH_WRITE_SECONDS if omitted. */
  seconds?: number;
}

/**
 * This process runs the writers of every case: a first, unreported run of the first case
 * warms its JIT, so the first case reported is not the one that paid for it.
 */
const WRITER_WARMUP_SECONDS = 1;

/** A contender that reports its own line once every slice ran. */
interface OpenContender extends Contender {
  finish(): Promise<BenchResult>;
  close(): Promise<void>;
}

/** One Sluice case in a single slice of its whole time: the warm-up, freshness. */
async function runSluice(
  c: SluiceCase,
  batches: Batches,
  redisUrl: string,
  s3: BenchS3 | null,
  log: Logger,
): Promise<BenchResult> {
  const sluice = await openSluiceCase(c, batches, redisUrl, s3, log);
  try {
    await sluice.slice(c.seconds ?? SECONDS);
    return await sluice.finish();
  } finally {
    await sluice.close();
  }
}

/** The case's table, with SLUICE_WARMUP_ROWS written and in L0. */
async function warmTable(sut: SluiceUnderTest, shards: number): Promise<TableDef> {
  const { sluice } = sut.runtime;
  const table = await sluice.tables.create({
    name: 'bench',
    schema: tableSchema,
    primaryKey: ['id'],
    shards,
    walLane: WAL_LANE,
  });
  const warmup = await sluice.writes.append(
    table.name,
    jsonRowsToRecordBatch(table.schema, makeRows(-SLUICE_WARMUP_ROWS, SLUICE_WARMUP_ROWS)),
  );
  await sut.runtime.parts.wal.settle();
  await inL0(sut, table.name, warmup);
  return table;
}

/** What one Sluice case has measured over its slices so far. */
interface SluiceTally {
  walEntries: Set<string>;
  ackedBatches: Set<number>;
  rows: number;
  shardWrites: number;
  trips: { total: number; allocate: number };
  peakRssMb: number;
  /** Σ of each slice's time from its start until all it acked was in L0; null once a slice never caught up. */
  l0Seconds: number | null;
}

async function openSluiceCase(
  c: SluiceCase,
  batches: Batches,
  redisUrl: string,
  s3: BenchS3 | null,
  log: Logger,
): Promise<OpenContender> {
  const { group } = c;
  const sut = await openSluice(redisUrl, c.groupCommit, s3, log);
  const location = sut.place.location;
  let table: TableDef;
  let workersBefore: WorkersSample;
  let walPutsBefore: RequestCounts;
  try {
    table = await warmTable(sut, group.shards);
    workersBefore = await sut.workers.sample();
    walPutsBefore = s3 ? await serverRequests(s3, location, WAL_DIRS) : NO_REQUESTS;
    sut.walPutMs.length = 0;
  } catch (err) {
    await sut.close();
    throw err;
  }
  const { sluice } = sut.runtime;
  const lag = new CommitLag(async (shard) => (await sut.observer.read(table.name, shard)).walCursor, {
    whileWriting: c.writesPerSecond !== undefined,
  });
  const tally: SluiceTally = {
    walEntries: new Set(),
    ackedBatches: new Set(),
    rows: 0,
    shardWrites: 0,
    trips: { total: 0, allocate: 0 },
    peakRssMb: 0,
    l0Seconds: 0,
  };
  const requestsBefore = requestCounts(sut.store);
  const write =
    group.input === 'json'
      ? (i: number) => sluice.writes.append(table.name, jsonRowsToRecordBatch(table.schema, batches.json[i]!))
      : (i: number) => sluice.writes.append(table.name, batches.arrow[i]!);
  const onAck = (result: AppendResult, ackAt: number, batch: number) => {
    tally.ackedBatches.add(batch);
    tally.rows += result.acked;
    tally.shardWrites += result.shards.length;
    // A table lane's request is one entry, at one seq for every shard it touched.
    for (const { shard, seq } of result.shards)
      tally.walEntries.add(WAL_LANE === 'table' ? `${seq}` : `${shard}/${seq}`);
    lag.offer(ackAt, result.shards);
  };
  const driver = new Driver({
    writers: group.writers,
    batches: batches.json.length,
    arrivals: ARRIVALS,
    ...(c.writesPerSecond ? { writesPerSecond: c.writesPerSecond } : {}),
  });
  const rssBeforeMb = round(process.memoryUsage.rss() / 2 ** 20, 1);
  const phases = new AckPhases();
  return {
    system: 'sluice',
    async slice(seconds) {
      // The round-trip metric is this process's: read around each slice, as another case's slices come between.
      const tripsBefore = await roundTrips();
      const startedAt = performance.now();
      const { peakRssMb } = await sut.workers.whileWriting(() =>
        lag.writing(() => phases.around(() => peakRss(() => driver.run(seconds, write, onAck)))),
      );
      tally.peakRssMb = Math.max(tally.peakRssMb, peakRssMb);
      await sut.runtime.parts.wal.settle();
      const trips = await roundTrips();
      tally.trips.total += trips.total - tripsBefore.total;
      tally.trips.allocate += trips.allocate - tripsBefore.allocate;
      const caughtUpAt = await lag.caughtUp();
      tally.l0Seconds =
        caughtUpAt === null || tally.l0Seconds === null
          ? null
          : tally.l0Seconds + (caughtUpAt - startedAt) / 1000;
    },
    async finish() {
      const lagFigures = await lag.settle();
      const workersAfter = await sut.workers.sample();
      const pipelineRequests = addRequests(
        requestsSince(sut.store, requestsBefore),
        requestsBetween(workersBefore.requests, workersAfter.requests),
      );
      const { rows } = tally;
      // The server sees no request of the lag poller's here: it only reads shard manifests.
      const walPuts = s3
        ? requestsBetween(walPutsBefore, await serverRequests(s3, location, WAL_DIRS)).put
        : 0;
      let merge: { mergeRequestsPer1000Rows: RequestCounts | null; mergedAll: boolean } | null = null;
      let mergeRequests: RequestCounts | null = null;
      if (c.groupCommit && !c.writesPerSecond) {
        const beforeMerge = requestCounts(sut.store);
        const baseBefore = s3 ? await serverRequests(s3, location, BASE_DIRS) : NO_REQUESTS;
        const mergedAll = await mergeAll(sluice, table.name);
        // Lance's own requests for the base reach only the server (none counted on the local store).
        const base = s3
          ? requestsBetween(baseBefore, await serverRequests(s3, location, BASE_DIRS))
          : NO_REQUESTS;
        mergeRequests = addRequests(requestsSince(sut.store, beforeMerge), base);
        merge = { mergeRequestsPer1000Rows: per1000(mergeRequests, rows), mergedAll };
      }
      const readableRows = (await countRows(sluice, table.name)) - SLUICE_WARMUP_ROWS;
      const driven = driver.result();
      const perWrite = (n: number) => (driven.writes === 0 ? null : round(n / driven.writes, 3));
      return {
        ...lineHead(c.name, 'sluice', true, group),
        groupCommit: c.groupCommit,
        workers: sut.workers.layout,
        walLane: table.walLane,
        ...(c.writesPerSecond ? { writesPerSecond: c.writesPerSecond } : {}),
        shards: table.shards,
        ...figures(driven, rows),
        ackPhases: phases.figures(),
        redisRoundTripsPerWrite: perWrite(tally.trips.total),
        redisRoundTripsPerShardWrite:
          tally.shardWrites === 0 ? null : round(tally.trips.total / tally.shardWrites, 3),
        redisRoundTripsOnAckPathPerWrite: perWrite(tally.trips.allocate),
        walEntriesPerWrite: perWrite(tally.walEntries.size),
        storeRequestsPer1000Rows: per1000(pipelineRequests, rows),
        storePutsPerWrite: perWrite(pipelineRequests.put),
        ...(merge ?? {}),
        ...(s3
          ? {
              ...requestFigures(
                driven,
                rows,
                walPuts,
                mergeRequests ? addRequests(pipelineRequests, mergeRequests) : pipelineRequests,
                mergeRequests ? 'write+seal+flush+merge' : 'write+seal+flush',
              ),
              walPutP50Ms: round(percentile(sortedMs(sut.walPutMs), 0.5), 2),
              walPutP99Ms: round(percentile(sortedMs(sut.walPutMs), 0.99), 2),
              putsPer1000RowsByStage:
                rows === 0
                  ? null
                  : {
                      wal: round((walPuts * 1000) / rows, 3),
                      sealFlush: round(((pipelineRequests.put - walPuts) * 1000) / rows, 3),
                      merge: mergeRequests ? round((mergeRequests.put * 1000) / rows, 3) : null,
                    },
            }
          : {}),
        ...lagFigures,
        l0RowsPerSec: tally.l0Seconds ? Math.round(rows / tally.l0Seconds) : null,
        sealDelayMs: table.settings.sealDelayMs,
        rssBeforeMb,
        peakRssMb: tally.peakRssMb,
        workerPeakRssMb: workersAfter.peakRssMb,
        workerJobs: workersAfter.jobs,
        readableRows,
        allAckedReadable: readableRows === tally.ackedBatches.size * group.batchRows,
        loadAvg1m: round(loadavg()[0]!, 1),
      };
    },
    async close() {
      await lag.stop();
      await sut.close();
    },
  };
}

function figures(driven: Drive, rows: number) {
  return {
    rows,
    writes: driven.writes,
    seconds: driven.seconds,
    rowsPerSec: Math.round(rows / driven.seconds),
    p50Ms: driven.p50Ms,
    p99Ms: driven.p99Ms,
    errors: driven.errors,
    ...(driven.firstError === undefined ? {} : { firstError: driven.firstError }),
    backpressureRetries: driven.backpressureRetries,
    rounds: driven.rounds,
    machineCpu: driven.machineCpu,
  };
}

// ---------------------------------------------------------------------------------------
// Baselines.

/** What every line says first: its case and system, whether its acks are durable, and how it ran. */
function lineHead(caseName: string, system: string, durable: boolean, group: Group) {
  return {
    bench: 'write',
    arrivals: ARRIVALS,
    case: caseName,
    system,
    durable,
    store: group.profile,
    input: group.input,
    batchRows: group.batchRows,
    writers: group.writers,
  };
}

async function openFloor(
  group: Group,
  batches: Batches,
  durable: boolean,
  s3: BenchS3 | null,
): Promise<OpenContender> {
  const place = await benchPlace('floor', s3);
  const { location } = place;
  let floor: FloorPut;
  let before: RequestCounts;
  try {
    floor =
      durable || location.kind === 's3'
        ? durableFloor(openBenchStore(location))
        : await noSyncFloor(location.dir);
    before = s3 ? await serverRequests(s3, location) : NO_REQUESTS;
  } catch (err) {
    await place.release();
    throw err;
  }
  const system = durable ? 'floor' : 'floor-nosync';
  const driver = new Driver({ writers: group.writers, batches: batches.walBytes.length, arrivals: ARRIVALS });
  let rows = 0;
  return {
    system,
    slice: (seconds) =>
      driver.run(
        seconds,
        (i) => floor.put(batches.walBytes[i]!),
        () => {
          rows += group.batchRows;
        },
      ),
    async finish() {
      const driven = driver.result();
      let requests: RequestFigures | null = null;
      if (s3) {
        const made = requestsBetween(before, await serverRequests(s3, location));
        requests = requestFigures(driven, rows, made.put, made, 'write');
      }
      return {
        ...lineHead(group.name, system, durable, group),
        ...figures(driven, rows),
        ...(requests ?? {}),
        loadAvg1m: round(loadavg()[0]!, 1),
      };
    },
    async close() {
      try {
        await floor.close();
      } finally {
        await place.release();
      }
    },
  };
}

/** A baseline's table: a temp dir, or a prefix of its own on the S3 endpoint. */
async function lanceHome(s3: BenchS3 | null): Promise<{ home: LanceHome; place: BenchPlace | null }> {
  if (!s3) return { home: await localLanceHome(), place: null };
  const place = await benchPlace('lancedb', s3);
  const prefix = place.location.kind === 's3' ? place.location.prefix : '';
  const home = {
    uri: `s3://${s3.bucket}/${prefix.replace(/\/$/, '')}`,
    storageOptions: lanceStorageOptions(s3EndpointOf(s3)),
    release: place.release,
  };
  return { home, place };
}

async function openLance(
  group: Group,
  batches: Batches,
  lanceBatches: LanceBatches,
  lance: Lance,
  schema: unknown,
  system: LanceSystem,
  s3: BenchS3 | null,
): Promise<OpenContender> {
  const { home, place } = await lanceHome(s3);
  const options = { writers: group.writers, arrivals: ARRIVALS, batchRows: group.batchRows, home };
  let opened: LanceContender;
  if (system === 'lancedb-memwal') {
    const withShard = lance.schemaOf(
      jsonRowsToRecordBatch(memwalSchema(parsedSchema), [{ ...makeRow(0), [SHARD_COLUMN]: 0 }]),
    );
    const warmup = shardBatch(
      lance,
      parsedSchema,
      group.shards,
      makeRows(-WARMUP_ROWS, WARMUP_ROWS),
      group.input,
    );
    opened = await openLanceMemwal(lance, lanceBatches.memwal, group.shards, {
      ...options,
      schema: withShard,
      warmup,
    });
  } else {
    const data =
      group.input === 'json' ? batches.json.slice(0, lanceBatches.memwal.length) : lanceBatches.arrow;
    opened = await openLanceAdd(lance, data, system === 'lancedb' ? 'concurrent' : 'serial', {
      ...options,
      schema,
      warmup: makeRows(-WARMUP_ROWS, WARMUP_ROWS),
    });
  }
  let before: RequestCounts;
  let walBefore: RequestCounts;
  try {
    before = s3 && place ? await serverRequests(s3, place.location) : NO_REQUESTS;
    walBefore = s3 && place ? await serverRequests(s3, place.location, WAL_DIRS) : NO_REQUESTS;
  } catch (err) {
    await opened.close();
    throw err;
  }
  return {
    system,
    slice: (seconds) => opened.slice(seconds),
    async finish() {
      const run = await opened.finish();
      let requests: RequestFigures | null = null;
      if (s3 && place) {
        // The MemWAL's memtables become generations (its L0) when its writers close.
        await opened.flush();
        const made = requestsBetween(before, await serverRequests(s3, place.location));
        const wal =
          system === 'lancedb-memwal'
            ? requestsBetween(walBefore, await serverRequests(s3, place.location, WAL_DIRS)).put
            : made.put;
        const covers =
          system === 'lancedb-memwal' ? 'write+flush (memtables to generations; no merge)' : 'write';
        requests = requestFigures(run.driven, run.rows, wal, made, covers);
      }
      return {
        ...lineHead(group.name, system, s3 !== null, group),
        version: lance.version,
        ...(system === 'lancedb-memwal' ? { shards: group.shards } : {}),
        ...figures(run.driven, run.rows),
        ...(requests ?? {}),
        countedRows: run.countedRows,
        loadAvg1m: round(loadavg()[0]!, 1),
      };
    },
    close: () => opened.close(),
  };
}

// ---------------------------------------------------------------------------------------
// Cases.

interface Group {
  /** `arrow-10rows-16writers-s3std-4shards`: the baselines' case; group commit does not apply to them. */
  name: string;
  input: Input;
  batchRows: number;
  writers: number;
  profile: StoreProfile;
  /** Of the Sluice table and the MemWAL baseline: local, the default or LOCAL_SHARDS' other (suffixed); S3, always suffixed. */
  shards: number;
  /** The LanceDB baselines the group runs, if `lancedb` is among the systems. */
  lanceSystems: LanceSystem[];
  cases: SluiceCase[];
  /** Whether its `freshness-` case runs: 16 writers, on the default shard count locally, on 1 and 4 shards on S3. */
  freshness: boolean;
}

const parsedSchema = parseTableSchema(tableSchema, ['id']);

/**
 * The local cases run on a table of the default shard count and on one of 4 shards, or of
 * one if 4 is the default: small batches and a modest rate are best given one shard, a
 * high rate of large batches several.
 */
const LOCAL_SHARDS = [...new Set([DEFAULT_SHARDS, 4, 1])].slice(0, 2);

/** A local case on the default shard count is not suffixed; `-1shard`, `-4shards` otherwise. */
function shardSuffix(shards: number, always = false): string {
  if (shards === DEFAULT_SHARDS && !always) return '';
  return `-${shards}shard${shards === 1 ? '' : 's'}`;
}

/**
 * The S3 cases: Arrow input only (what they measure is the endpoint, not the conversion),
 * 16 and 64 writers of both batch sizes on 1 and 4 shards, 16 shards for 10-row batches
 * (Sluice and the floor only: it asks whether a write still costs one PUT), and a lone writer
 * of 10 rows on 1 and 4 shards, as in a Lambda function, which handles one request at a time.
 */
function s3Shards(batchRows: number, writers: number): number[] {
  if (writers === 1) return batchRows === 10 ? [1, 4] : [];
  return batchRows === 10 ? [1, 4, 16] : [1, 4];
}

function lanceSystemsOf(profile: StoreProfile, writers: number, shards: number): LanceSystem[] {
  if (profile === 'local') {
    // One writer: serialized adds are the same thing as concurrent ones, measured once.
    return writers > 1 ? ['lancedb', 'lancedb-serial', 'lancedb-memwal'] : ['lancedb', 'lancedb-memwal'];
  }
  return shards > 4 ? [] : ['lancedb', 'lancedb-memwal'];
}

function selectGroups(): Group[] {
  const patterns = [...process.argv.slice(3), ...(process.env.BENCH_WRITE_CASES ?? '').split(',')]
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => new RegExp(p));
  const selected = (name: string) => patterns.length === 0 || patterns.some((p) => p.test(name));
  const groups: Group[] = [];
  // Batch sizes outermost: each size's batches are built once for all its inputs and stores.
  for (const batchRows of BATCH_ROWS) {
    for (const input of INPUTS) {
      for (const profile of STORE_PROFILES) {
        if (profile !== 'local' && input !== 'arrow') continue;
        for (const writers of WRITERS) {
          for (const shards of profile === 'local' ? LOCAL_SHARDS : s3Shards(batchRows, writers)) {
            const name =
              profile === 'local'
                ? `${input}-${batchRows}rows-${writers}writers${shardSuffix(shards)}`
                : `${input}-${batchRows}rows-${writers}writers-${profile}${shardSuffix(shards, true)}`;
            const group: Group = {
              name,
              input,
              batchRows,
              writers,
              profile,
              shards,
              lanceSystems: lanceSystemsOf(profile, writers, shards),
              cases: [],
              freshness: false,
            };
            const modes = profile === 'local' ? [true, false] : [true];
            group.cases = modes
              .map((groupCommit) => ({ name: `${name}-${groupCommit ? 'gc' : 'nogc'}`, group, groupCommit }))
              .filter((c) => selected(c.name) || selected(name));
            group.freshness =
              writers === 16 &&
              (profile === 'local' ? shards === DEFAULT_SHARDS : shards <= 4) &&
              selected(`freshness-${name}`);
            if (group.cases.length > 0 || group.freshness || selected(name)) groups.push(group);
          }
        }
      }
    }
  }
  return groups.filter((g) => g.cases.length > 0 || g.freshness);
}

type Baselines = Partial<Record<string, BenchResult>>;

function compared(result: BenchResult, group: Group, baselines: Baselines): BenchResult {
  const rate = (name: string) => {
    const b = baselines[name];
    return b ? round((result.rowsPerSec as number) / (b.rowsPerSec as number), 2) : undefined;
  };
  const floor = baselines.floor;
  const latency = (field: 'p50Ms' | 'p99Ms') =>
    floor ? round((result[field] as number) / (floor[field] as number), 2) : undefined;
  return {
    ...result,
    baselineCase: group.name,
    ratioToLancedb: rate('lancedb'),
    ratioToLancedbSerial: rate('lancedb-serial'),
    ratioToLancedbMemwal: rate('lancedb-memwal'),
    ratioToFloor: rate('floor'),
    ratioToFloorNosync: rate('floor-nosync'),
    p50ToFloorP50: latency('p50Ms'),
    p99ToFloorP99: latency('p99Ms'),
  };
}

interface Contenders {
  /** Every system of the group, in the order of their first turn. */
  opened: OpenContender[];
  /** The Sluice ones among them, with their case. */
  sluiceCases: Map<OpenContender, SluiceCase>;
}

/** What the systems of a group are opened with. */
interface ContenderSetup {
  systems: ReadonlySet<string>;
  lance: Lance | null;
  lanceSchema: unknown;
  redisUrl: string | null;
  /** The S3 endpoint, for a group of an S3 profile; null for a local one. */
  s3: BenchS3 | null;
  log: Logger;
}

/** Opens every system a group runs; should one fail to open, those already open are closed. */
async function openContenders(group: Group, batches: Batches, setup: ContenderSetup): Promise<Contenders> {
  const contenders: Contenders = { opened: [], sluiceCases: new Map() };
  const { opened, sluiceCases } = contenders;
  try {
    const { s3 } = setup;
    if (setup.systems.has('floor')) {
      opened.push(await openFloor(group, batches, true, s3));
      // On S3 no put fsyncs anything: there is no floor without the fsync to compare with.
      if (!s3) opened.push(await openFloor(group, batches, false, s3));
    }
    if (setup.lance && setup.lanceSchema && group.lanceSystems.length > 0) {
      const lanceBatches = buildLanceBatches(setup.lance, batches, group, parsedSchema);
      for (const system of group.lanceSystems) {
        opened.push(
          await openLance(group, batches, lanceBatches, setup.lance, setup.lanceSchema, system, s3),
        );
      }
    }
    const { redisUrl } = setup;
    for (const c of group.cases) {
      if (redisUrl === null) break;
      const sluice = await openSluiceCase(c, batches, redisUrl, s3, setup.log);
      sluiceCases.set(sluice, c);
      opened.push(sluice);
    }
    return contenders;
  } catch (err) {
    for (const contender of opened) await contender.close();
    throw err;
  }
}

/** A group's systems as measured side by side: a line each, and what its freshness case needs. */
interface SideBySide {
  results: BenchResult[];
  baselines: Baselines;
  /** The Sluice case with group commit, if the group ran one. */
  peak: BenchResult | null;
}

/**
 * Runs a group's systems in turns and closes them. A frame of its own, so that the contenders
 * and the LanceDB batches they hold are garbage before the group's freshness case runs.
 */
async function runSideBySide(group: Group, batches: Batches, setup: ContenderSetup): Promise<SideBySide> {
  const { opened, sluiceCases } = await openContenders(group, batches, setup);
  const run: SideBySide = { results: [], baselines: {}, peak: null };
  const { baselines } = run;
  try {
    if (opened.length > 0) {
      progress(`write ${group.name}: ${opened.map((o) => o.system).join(', ')} in ${SLICES} slices`);
      await takeTurns(opened, SLICES, SECONDS);
    }
    for (const contender of opened.filter((o) => !sluiceCases.has(o))) {
      const result = await contender.finish();
      baselines[result.system] = result;
      report(result);
      run.results.push(result);
    }
    if (group.writers === 1 && baselines.lancedb) baselines['lancedb-serial'] = baselines.lancedb;
    for (const [contender, c] of sluiceCases) {
      const result = compared(await contender.finish(), group, baselines);
      if (c.groupCommit) run.peak = result;
      report(result);
      run.results.push(result);
    }
  } finally {
    for (const contender of opened) await contender.close();
  }
  return run;
}

export async function* run(): AsyncIterable<BenchResult> {
  const systems = new Set(
    (process.env.BENCH_WRITE_SYSTEMS ?? 'sluice,lancedb,floor').split(',').map((s) => s.trim()),
  );
  const groups = selectGroups();
  progress(`write: ${groups.length} groups, ≤${SECONDS}s per case, systems ${[...systems].join(',')}`);

  const log = pino({ level: process.env.SLUICE_LOG_LEVEL || 'warn' }, pino.destination(2));
  const lance = systems.has('lancedb') ? new Lance() : null;
  const redis = systems.has('sluice')
    ? await ensureRedis(process.env.SLUICE_REDIS_URL || 'redis://127.0.0.1:6379', log)
    : null;
  let s3: BenchS3 | null = null;
  try {
    if (groups.some((g) => g.profile !== 'local')) s3 = await startBenchS3();
    const lanceSchema = lance?.schemaOf(jsonRowsToRecordBatch(parsedSchema, makeRows(0, 1))) ?? null;
    let batches: Batches | null = null;
    let warmedUp = false;
    for (const group of groups) {
      if (batches?.batchRows !== group.batchRows) {
        batches = null;
        const t0 = performance.now();
        batches = buildBatches(group.batchRows, parsedSchema);
        progress(`write: built ${group.batchRows}-row batches in ${Math.round(performance.now() - t0)} ms`);
      }
      const groupS3 = group.profile === 'local' ? null : s3;
      if (groupS3)
        await groupS3.server.setFaults({ rules: [{ latency: S3_LATENCY[group.profile as S3Profile] }] });
      if (redis && !warmedUp && group.cases[0]) {
        const warmup = { ...group.cases[0], seconds: WRITER_WARMUP_SECONDS };
        await runSluice(warmup, batches, redis.url, groupS3, log);
        warmedUp = true;
      }
      const setup = { systems, lance, lanceSchema, redisUrl: redis?.url ?? null, s3: groupS3, log };
      const { results, baselines, peak: measured } = await runSideBySide(group, batches, setup);
      yield* results;
      if (!redis) continue;
      // Paused workers flush only between slices: the L0 lag would measure the pause.
      if (group.freshness && WORKERS !== 'paused') {
        const peak =
          measured ??
          (await runSluice(
            { name: `${group.name}-gc`, group, groupCommit: true },
            batches,
            redis.url,
            groupS3,
            log,
          ));
        const writesPerSecond = FRESHNESS_PACE ?? Math.max(1, Math.round(sustainedWritesPerSecond(peak) / 2));
        const c = { name: `freshness-${group.name}-gc`, group, groupCommit: true, writesPerSecond };
        const run = compared(await runSluice(c, batches, redis.url, groupS3, log), group, baselines);
        const result = { ...run, ...freshnessGoal(run, group) };
        report(result);
        yield result;
      }
    }
  } finally {
    try {
      await s3?.server.stop();
    } finally {
      await redis?.stop();
    }
  }
}

/**
 * The S3 test server of the run's S3 cases, and the environment LanceDB's MemWAL writer
 * reads its endpoint from (it ignores the connection's storage options).
 */
async function startBenchS3(): Promise<BenchS3> {
  const s3: BenchS3 = { server: await startS3Server({ bucket: 'sluice-bench' }), bucket: 'sluice-bench' };
  Object.assign(process.env, lanceS3Environment(s3EndpointOf(s3)));
  return s3;
}

/**
 * The rate a case's pipeline sustains: its writes over the time until every acked row was in
 * L0. Acks can outrun the flush for a while, but only until backpressure (a shard's
 * `maxUnflushedGenerations`) holds them back, so the ack rate of a short case is no peak
 * the pipeline could keep.
 */
function sustainedWritesPerSecond(peak: BenchResult): number {
  const ackRate = (peak.writes as number) / (peak.seconds as number);
  const l0RowsPerSec = peak.l0RowsPerSec as number | null;
  if (l0RowsPerSec === null) return ackRate;
  return Math.min(ackRate, l0RowsPerSec / (peak.batchRows as number));
}

/**
 * Issue 33's freshness goal on S3: ack → L0 p99 ≤ the table's `sealDelayMs` + 5 × the
 * endpoint's median request latency, at half of peak throughput. Local lines get none.
 */
function freshnessGoal(r: BenchResult, group: Group) {
  if (group.profile === 'local') return {};
  const endpointMedianMs = S3_LATENCY[group.profile].medianMs;
  const goalMs = (r.sealDelayMs as number) + 5 * endpointMedianMs;
  const p99 = r.l0LagP99Ms as number;
  return {
    endpointMedianMs,
    l0LagGoalMs: goalMs,
    l0LagP99ToGoal: round(p99 / goalMs, 2),
    l0LagGoalHolds: r.everyAckCommitted === true && p99 <= goalMs,
  };
}

function report(r: BenchResult): void {
  const lag =
    r.l0LagP99Ms === undefined
      ? ''
      : `, L0 lag p99 ${r.l0LagP99Ms} ms, ${Number(r.l0RowsPerSec).toLocaleString('en-US')} rows/s into L0`;
  const ratio =
    r.ratioToFloor === undefined ? '' : `, ×${r.ratioToFloor} floor rows/s, p50 ×${r.p50ToFloorP50}`;
  const puts = r.putsPerWrite === undefined ? '' : `, ${r.putsPerWrite} WAL PUTs per write`;
  const goal =
    r.l0LagGoalMs === undefined
      ? ''
      : `, L0 lag goal ${r.l0LagGoalMs} ms ${r.l0LagGoalHolds ? 'holds' : 'missed'}`;
  progress(
    `write ${r.case} ${r.system}: ${Number(r.rowsPerSec).toLocaleString('en-US')} rows/s, ` +
      `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${lag}${ratio}${puts}${goal}`,
  );
}

function walLaneOf(value = 'table'): WalLane {
  if (value !== 'table' && value !== 'shard') {
    throw new Error(`BENCH_WRITE_WAL_LANE is table or shard, not "${value}"`);
  }
  return value;
}

function paceOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const pace = Number(value);
  if (!Number.isInteger(pace) || pace < 1) {
    throw new Error(`BENCH_WRITE_FRESHNESS_PACE is a whole number of writes per second, not "${value}"`);
  }
  return pace;
}

/**
 * The process's Prometheus registry and every Sluice metric, defined once. Labels stay
 * low-cardinality: outcomes, operations, queue names, kinds — never keys or job ids, and
 * tables (and their indexes) only on the `sluice_table_*` gauges, one series per table,
 * which say how far each base lags.
 * An `outcome` is `ok` or the lower-cased error code (a closed set, shared/errors.ts).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import packageJson from '../package.json' with { type: 'json' };
import { toSluiceError } from './errors.ts';
import type { TableLag } from './scheduler/table-lag.ts';

export const registry = new Registry();

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Background work runs from milliseconds (an empty seal) to the merge ceiling (an hour). */
const WORK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const COUNT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

export function outcomeOf(err: unknown): string {
  return toSluiceError(err).code.toLowerCase();
}

export const writeDuration = new Histogram({
  name: 'sluice_write_duration_seconds',
  help: 'Upserts and deletes through the domain API, from the call to the ack (or the error)',
  labelNames: ['op', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const writeRows = new Counter({
  name: 'sluice_write_rows_total',
  help: 'Rows of upserts and deletes (keys), by the outcome of their request',
  labelNames: ['op', 'outcome'] as const,
  registers: [registry],
});

export const walPuts = new Counter({
  name: 'sluice_wal_puts_total',
  help: 'Put-if-absent of WAL entries; precondition_failed is a seq already taken (another seq is tried)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const walRedisRoundTrips = new Counter({
  name: 'sluice_wal_redis_round_trips_total',
  help: 'Redis round trips the WAL writer made: allocate (on the ack path, completions folded in), note (on the ack path of an idempotent append), complete and seal_request (after the ack)',
  labelNames: ['step'] as const,
  registers: [registry],
});

/**
 * Where an ack's time goes (docs/design.md, "Write", "Where an ack waits"): observed once per
 * write and shard it touched, so each phase is weighted as the acks are. Fine buckets below
 * 100 ms, where an S3 request's latency and the waits behind it lie.
 */
export const walAckPhase = new Histogram({
  name: 'sluice_wal_ack_phase_seconds',
  help: 'Phases of a WAL write until its ack: group (waiting for its group to get a put), seq (the allocation, and a floor read or resync it needed), put (the store), settle (after the put), shards (waiting for the other shards of the request)',
  labelNames: ['phase'] as const,
  buckets: [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75,
    1, 2, 5,
  ],
  registers: [registry],
});

export const walEntryWrites = new Histogram({
  name: 'sluice_wal_entry_writes',
  help: 'Writes that shared one durable WAL entry: the group-commit batch size (1 with group commit off)',
  buckets: COUNT_BUCKETS,
  registers: [registry],
});

export const walEntryRows = new Histogram({
  name: 'sluice_wal_entry_rows',
  help: 'Rows in one durable WAL entry',
  buckets: [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000],
  registers: [registry],
});

const workDuration = (work: string, of: 'shard' | 'table') =>
  new Histogram({
    name: `sluice_${work}_duration_seconds`,
    help: `Runs of ${work} of one ${of}, by outcome`,
    labelNames: ['outcome'] as const,
    buckets: WORK_BUCKETS,
    registers: [registry],
  });

export const sealDuration = workDuration('seal', 'shard');
export const flushDuration = workDuration('flush', 'shard');
export const mergeDuration = workDuration('merge', 'table');
export const compactDuration = workDuration('compact', 'table');

export const flushRetries = new Counter({
  name: 'sluice_flush_retries_total',
  help: 'Failed flush attempts that BullMQ retries with backoff (I6)',
  registers: [registry],
});

export const deadLetterCount = new Counter({
  name: 'sluice_dead_letters_total',
  help: 'Jobs recorded in the dead-letter queue, by the queue they failed in',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const cooldowns = new Counter({
  name: 'sluice_cooldowns_total',
  help: 'Targets that entered a cooldown after consecutive failures (I15), by work kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const queueBudgetExceeded = new Counter({
  name: 'sluice_queue_budget_exceeded_total',
  help: 'Runs that waited in their queue past the queue-wait budget (I16), by work kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const queueWait = new Histogram({
  name: 'sluice_queue_wait_seconds',
  help: 'From a job being added (less its requested delay) to a worker starting it; first attempts only',
  labelNames: ['queue'] as const,
  buckets: WORK_BUCKETS,
  registers: [registry],
});

export const pendingGenerations = new Histogram({
  name: 'sluice_pending_generations',
  help: 'Pending generations (sealed plus committed-unmerged) per shard, sampled by the scheduler',
  buckets: [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096],
  registers: [registry],
});

export const pendingWarnings = new Counter({
  name: 'sluice_pending_warnings_total',
  help: 'Samples of a shard at or above the pending-generations warning threshold',
  registers: [registry],
});

export const samplerSchedulerLost = new Counter({
  name: 'sluice_sampler_scheduler_lost_total',
  help: 'Times the sampler Job Scheduler was found missing from Redis and re-created',
  registers: [registry],
});

export const gcDeletedObjects = new Counter({
  name: 'sluice_gc_deleted_objects_total',
  help: 'Objects deleted by garbage collection, by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const baseRollbacks = new Counter({
  name: 'sluice_base_rollbacks_total',
  help: 'Commits on a base that Sluice did not record and that may change rows or the schema, rolled back, by Lance operation',
  labelNames: ['operation'] as const,
  registers: [registry],
});

/** Runs `work` and observes its duration under its outcome; the error goes on unchanged. */
export async function timed<T>(histogram: Histogram<'outcome'>, work: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    const result = await work();
    end({ outcome: 'ok' });
    return result;
  } catch (err) {
    end({ outcome: outcomeOf(err) });
    throw err;
  }
}

/**
 * What the scrape-time gauges read from Redis. Every process that serves /metrics adds one
 * per Redis namespace it runs on (observability/scrape-source.ts); several are summed.
 */
export interface ScrapeSource {
  poisonedShards(): Promise<number>;
  jobCounts(): Promise<Array<{ queue: string; state: string; count: number }>>;
  tableLags(): Promise<TableLag[]>;
}

const scrapeSources = new Set<ScrapeSource>();

/** Returns the function that removes it again. */
export function addScrapeSource(source: ScrapeSource): () => void {
  scrapeSources.add(source);
  return () => scrapeSources.delete(source);
}

/** A scrape must answer while Redis does not: its gauges then have no samples instead. */
const SCRAPE_TIMEOUT_MS = 2_000;

async function fromSources<T>(read: (source: ScrapeSource) => Promise<T>): Promise<T[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, SCRAPE_TIMEOUT_MS, null);
  });
  try {
    return await Promise.race([Promise.all([...scrapeSources].map(read)), timeout]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export const poisonedShards = new Gauge({
  name: 'sluice_poisoned_shards',
  help: 'Shards carrying a poison record (I7), read from Redis at scrape time',
  registers: [registry],
  async collect() {
    const counts = await fromSources((source) => source.poisonedShards());
    this.reset();
    if (counts && counts.length > 0) this.set(counts.reduce((sum, count) => sum + count, 0));
  },
});

export const queueJobs = new Gauge({
  name: 'sluice_queue_jobs',
  help: 'BullMQ jobs per queue and state, read from Redis at scrape time',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    const counts = await fromSources((source) => source.jobCounts());
    this.reset();
    for (const { queue, state, count } of counts?.flat() ?? []) this.inc({ queue, state }, count);
  },
});

/** One Redis read serves every table gauge of a scrape. */
let lagsRead: { at: number; lags: Promise<TableLag[][] | null> } | null = null;

function scrapedLags(): Promise<TableLag[][] | null> {
  const now = Date.now();
  if (lagsRead === null || now - lagsRead.at > 1_000) {
    lagsRead = { at: now, lags: fromSources((source) => source.tableLags()) };
  }
  return lagsRead.lags;
}

/** A gauge of the table lags, set at scrape time: `series` gives its labelled values for one table. */
function tableGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  series: (lag: TableLag) => Array<[Record<L, string>, number]>,
) {
  return new Gauge({
    name: `sluice_table_${name}`,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const lags = await scrapedLags();
      this.reset();
      for (const lag of lags?.flat() ?? [])
        for (const [labels, value] of series(lag)) this.set(labels, value);
    },
  });
}

/** One series per table: name, help, and the figure (null: the table has no base yet). */
const TABLE_FIGURES: ReadonlyArray<[string, string, (lag: TableLag) => number | null]> = [
  [
    'pending_generations',
    'Committed generations not yet merged into the base, per table, as last sampled',
    (lag) => lag.pendingGenerations,
  ],
  ['pending_rows', 'Rows of the committed generations not yet merged, per table', (lag) => lag.pendingRows],
  [
    'oldest_pending_seconds',
    'Age of the oldest committed generation not yet merged (0: caught up), per table',
    (lag) => lag.oldestPendingSeconds,
  ],
  ['base_rows', 'Rows in the base, per table', (lag) => lag.base?.rows ?? null],
  [
    'base_versions',
    'Lance versions the base keeps (cleanup leaves those a read may still use), per table',
    (lag) => lag.base?.versions ?? null,
  ],
  ['base_fragments', 'Fragments in the base, per table', (lag) => lag.base?.fragments ?? null],
  [
    'base_small_fragments',
    'Small fragments in the base, which an optimize compacts, per table',
    (lag) => lag.base?.smallFragments ?? null,
  ],
];

for (const [name, help, figure] of TABLE_FIGURES) {
  tableGauge(name, help, ['table'], (lag) => {
    const value = figure(lag);
    return value === null ? [] : [[{ table: lag.table }, value]];
  });
}

tableGauge(
  'index_unindexed_rows',
  'Base rows an index does not cover yet, per table and index',
  ['table', 'index'],
  (lag) =>
    (lag.base?.indexes ?? []).map((index) => [{ table: lag.table, index: index.name }, index.unindexedRows]),
);

/** Node.js and process metrics (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, GC, handles). */
collectDefaultMetrics({ register: registry });

export const buildInfo = new Gauge({
  name: 'sluice_build_info',
  help: 'Always 1; the labels name the running Sluice version and Node.js version',
  labelNames: ['version', 'node'] as const,
  registers: [registry],
});
buildInfo.set({ version: packageJson.version, node: process.versions.node }, 1);

/** `route` is the route's pattern (`/v1/tables/:t/rows`), never the path: table names stay out of labels. */
export const httpRequests = new Counter({
  name: 'sluice_http_requests_total',
  help: 'HTTP requests answered, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'sluice_http_request_duration_seconds',
  help: 'HTTP requests from arrival to answer, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const readDuration = new Histogram({
  name: 'sluice_read_duration_seconds',
  help: 'Point lookups and scans over HTTP, from arrival to answer, by status',
  labelNames: ['op', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const bytesWritten = new Counter({
  name: 'sluice_write_bytes_total',
  help: 'Request body bytes of acknowledged upserts and deletes',
  labelNames: ['op'] as const,
  registers: [registry],
});

export const overlayComputations = new Counter({
  name: 'sluice_read_overlay_computations_total',
  help: 'Pending overlays merged for a read snapshot (`keys`, `order`) rather than reused from an earlier page or read',
  labelNames: ['what'] as const,
  registers: [registry],
});

export const filterRunAsks = new Counter({
  name: 'sluice_search_filter_run_asks_total',
  help: 'Pending runs a filtered scan asked which rows its filter passes, rather than reusing the answer',
  registers: [registry],
});

export const searchAsks = new Counter({
  name: 'sluice_search_asks_total',
  help: "Asks a vector or text search made, by side: LanceDB queries of the base (`base`) and of pending tables (`pending`), and searches of a pending block's graph (`graph`); a side asks again while the rows it drops crowd out its k, unless the other sides already hold k better rows",
  labelNames: ['side'] as const,
  registers: [registry],
});

export const probedShares = new Histogram({
  name: 'sluice_search_probed_share',
  help: 'The share of its IVF partitions a vector search probed on the base, and alike on every indexed pending block (1: the base compared every row, and so did they)',
  buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.99, 1],
  registers: [registry],
});

export const bytesRead = new Counter({
  name: 'sluice_read_bytes_total',
  help: 'Response body bytes of answered lookups and scans',
  labelNames: ['op'] as const,
  registers: [registry],
});

/**
 * The one typed configuration object. Every default lives here; every setting can be
 * overridden by the environment variable named beside it (docs/design.md, "Environment" fixes the names of
 * the first few, the rest follow the `SLUICE_*` pattern).
 */
import { z } from 'zod';
import { SluiceError } from './errors.ts';
import { isPlainObject } from './plain-object.ts';

const int = (min = 0) =>
  z.coerce.number({ error: 'expected a whole number' }).int({ error: 'expected a whole number' }).min(min);

export const TableSettingsSchema = z
  .object({
    /** Committed-unmerged generations in a table that trigger a merge; 0 turns the count trigger off. */
    mergeAfterGenerations: int().default(8),
    /** Age of the oldest committed-unmerged generation that triggers a merge; 0 turns it off. */
    mergeAfterSeconds: int().default(300),
    /**
     * A merge takes the oldest committed generations up to these bounds (always at least
     * one): rows and bytes bound its memory and its time, the generation count the files it
     * opens. A table that is behind merges back to back in batches this big (docs/design.md, "Merge").
     */
    maxGenerationsPerMerge: int(1).default(1024),
    maxRowsPerMerge: int(1).default(1_000_000),
    maxBytesPerMerge: int(1).default(256 * 1024 * 1024),
    /** How long a seal waits after the first unsealed write, to batch a burst into one generation. */
    sealDelayMs: int().default(200),
    /**
     * WAL bytes cut into one generation at most. A generation's flush takes time in proportion
     * to its size, so this bounds the time from a seal to its L0 commit once a shard's rate
     * seals by size rather than by `sealDelayMs` (docs/design.md, "Seal").
     */
    maxGenerationBytes: int(1).default(8 * 1024 * 1024),
    maxGenerationRows: int(1).default(1_000_000),
    /** Merges recorded since the last optimize (Lance's compaction, index update and cleanup) that trigger one. */
    optimizeAfterMerges: int(1).default(8),
    /** Base rows no index covers yet that trigger an optimize while merges are still behind. */
    optimizeAfterUnindexedRows: int(1).default(4_000_000),
    /** Small fragments (Lance's own measure) in the base that trigger an optimize. */
    optimizeAfterSmallFragments: int(1).default(16),
    /** Rows past retention one step of the merge lane deletes from the base at most (always at least one timestamp's). */
    retentionBatchRows: int(1).default(1_000_000),
  })
  .strict();

export type TableSettings = z.infer<typeof TableSettingsSchema>;

export const ConfigSchema = z.object({
  redisUrl: z.string().default('redis://127.0.0.1:6379'),
  /**
   * Seed nodes of a Redis Cluster, `host:port` comma-separated; empty = one node at `redisUrl`.
   * With seeds set, `redisUrl` still gives the TLS (`rediss://`), user name and password of every node.
   */
  redisClusterNodes: z
    .string()
    .regex(/^$|^[^\s,]+:\d{1,5}(,[^\s,]+:\d{1,5})*$/, 'comma-separated host:port, no spaces')
    .default(''),
  redisPrefix: z
    .string()
    .regex(/^[A-Za-z0-9_:.-]+$/, 'letters, digits, _ : . - only')
    .default('sluice'),
  storeUrl: z.string().default('file://./.sluice'),
  /** The WAL's own store (an S3 Express directory bucket, say); absent: the table store. */
  walStoreUrl: z.string().optional(),
  /** The WAL store's S3 endpoint, when it is not `s3.endpoint`. */
  walS3Endpoint: z.string().optional(),
  /** Path of a JSON fault plan the file store suffers (shared/store/fault-plan.ts); test runs only. */
  storeFaultPlan: z.string().optional(),
  s3: z
    .object({
      endpoint: z.string().optional(),
      region: z.string().default('us-east-1'),
      forcePathStyle: z.boolean().default(false),
      accessKeyId: z.string().optional(),
      secretAccessKey: z.string().optional(),
      connectTimeoutMs: int(1).default(3_000),
      requestTimeoutMs: int(1).default(30_000),
      maxSockets: int(1).default(256),
      /** How long a conditional put is tried again after transient failures before the caller sees one. */
      putDeadlineMs: int(0).default(10_000),
      /** Directory-bucket listing (no key order, no StartAfter); absent: buckets named `…--x-s3`. */
      express: z.boolean().optional(),
    })
    .prefault({}),
  host: z.string().default('127.0.0.1'),
  port: int().max(65535).default(8080),
  /** A worker process serves /metrics and /healthz here, on `host`; 0 picks a free port. */
  metricsPort: int().max(65535).default(9464),
  role: z.enum(['all', 'api', 'worker']).default('all'),
  queues: z.string().default('seal,flush,merge,compact,sampler'),
  tokens: z
    .array(
      z.object({
        name: z.string().min(1),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'lower-case hex sha256'),
        scopes: z.array(z.enum(['read', 'write', 'admin'])).min(1),
      }),
    )
    .default([]),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  logPretty: z.boolean().default(false),
  logSync: z.boolean().default(false),
  /** The sampler prints CloudWatch Embedded Metric Format lines each tick (the AWS stack turns this on). */
  cloudwatchEmf: z.boolean().default(false),

  wal: z
    .object({
      /**
       * Appends to one shard that arrive while its puts are busy share the next WAL entry;
       * no write ever waits for a window. Off: one entry per append.
       */
      groupCommit: z.boolean().default(true),
      /** WAL puts of one shard in flight at once in this process (group commit on). */
      maxPutsInFlight: int(1).default(4),
      /** With a put already in flight, a further one starts at once when this much is waiting. */
      pipelineMinBytes: int(1).default(4 * 1024 * 1024),
      /** The longest a waiting group waits for a running put to end, past gathering this long itself. */
      pipelineWaitMs: int(0).default(2),
      groupCommitMaxBytes: int(1).default(8 * 1024 * 1024),
      groupCommitMaxRows: int(1).default(100_000),
      /** A writer gives up on its WAL put after this long. */
      putTimeoutMs: int(1).default(10_000),
      /** A seq allocated this long ago with no entry is a hole; must exceed putTimeoutMs. */
      holeTimeoutMs: int(1).default(30_000),
    })
    .prefault({}),
  flush: z
    .object({
      maxRetries: int().default(8),
      retryBaseMs: int(1).default(50),
      retryMaxMs: int(1).default(30_000),
    })
    .prefault({}),
  limits: z
    .object({
      maxUnflushedGenerations: int(1).default(64),
      maxUnsealedBytes: int(1).default(512 * 1024 * 1024),
      maxBodyBytes: int(1).default(16 * 1024 * 1024),
      maxRowsPerRequest: int(1).default(100_000),
      readCacheBytes: int(0).default(256 * 1024 * 1024),
      /** Pending rows kept as LanceDB tables in memory for searches (docs/design.md, "Search"). */
      searchCacheBytes: int(1024 * 1024).default(256 * 1024 * 1024),
    })
    .prefault({}),
  http: z
    .object({
      /** A request still running after this long is answered 504 TIMEOUT; a write may land anyway, and retrying it in full is harmless. */
      requestTimeoutMs: int(1).default(30_000),
      /** How long the ack of a write sent with an `Idempotency-Key` is kept for its retries. */
      idempotencyTtlSeconds: int(1).default(86_400),
    })
    .prefault({}),
  workers: z
    .object({
      sealConcurrency: int(1).default(16),
      flushConcurrency: int(1).default(8),
      /** Merge-lane jobs (merges and optimizes) of different tables at once per worker process; one table never runs two (I12). */
      mergeConcurrency: int(1).default(2),
      /** How long a worker holds a job's lock between renewals; a dead worker's job is redelivered after it. */
      lockDurationMs: int(1000).default(30_000),
      stalledIntervalMs: int(1000).default(30_000),
      /**
       * Times a job may be redelivered after its worker died before BullMQ fails it. A worker
       * killed by a deploy is no reason to fail a flush; one that dies on the same job this
       * many times in a row (out of memory on it, say) is, and the shard is poisoned (I6).
       */
      maxStalledCount: int().default(5),
      shutdownGraceSeconds: int().default(30),
    })
    .prefault({}),
  scheduler: z
    .object({
      samplerIntervalSeconds: int(1).default(5),
      /** Pending generations of a shard at which the sampler warns; 0 = never (the metric is always kept). */
      pendingWarnGenerations: int().default(256),
      /** Pending generations of a shard at which its reads are refused with READ_AMPLIFICATION. */
      pendingRejectGenerations: int(1).default(4096),
      /** I15: consecutive failures of a (kind, target) before the scheduler skips it; 0 = never. */
      cooldownAfterFailures: int().default(3),
      cooldownBaseSeconds: int().default(600),
      cooldownMaxSeconds: int().default(21_600),
      /** Failures after which a target is flagged for an operator. */
      attentionAfterFailures: int(1).default(15),
      /** I16: merge time budgets. */
      mergeQueueBudgetSeconds: int(1).default(600),
      mergeCeilingSeconds: int(1).default(3600),
      mergeNoProgressSeconds: int(1).default(600),
      /** Objects a manifest stopped needing are deleted only this long after, for readers still using them. */
      gcGraceSeconds: int(1).default(3600),
      /**
       * A WAL entry whose seal request was lost (its writer died after the put, or the put's
       * answer was lost) is sealed about this long after its shard's last write; at least
       * twice wal.putTimeoutMs, so a put still under way when its shard is looked at has ended.
       */
      lostSealSeconds: int(1).default(30),
    })
    .prefault({}),
  tableDefaults: TableSettingsSchema.prefault({}),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Environment variable → config path. Values are strings; zod coerces them. */
const ENV: ReadonlyArray<readonly [string, string]> = [
  ['SLUICE_REDIS_URL', 'redisUrl'],
  ['SLUICE_REDIS_CLUSTER_NODES', 'redisClusterNodes'],
  ['SLUICE_REDIS_PREFIX', 'redisPrefix'],
  ['SLUICE_STORE_URL', 'storeUrl'],
  ['SLUICE_STORE_FAULT_PLAN', 'storeFaultPlan'],
  ['SLUICE_S3_ENDPOINT', 's3.endpoint'],
  ['SLUICE_S3_REGION', 's3.region'],
  ['SLUICE_S3_FORCE_PATH_STYLE', 's3.forcePathStyle'],
  ['SLUICE_S3_ACCESS_KEY_ID', 's3.accessKeyId'],
  ['SLUICE_S3_SECRET_ACCESS_KEY', 's3.secretAccessKey'],
  ['SLUICE_S3_CONNECT_TIMEOUT_MS', 's3.connectTimeoutMs'],
  ['SLUICE_S3_REQUEST_TIMEOUT_MS', 's3.requestTimeoutMs'],
  ['SLUICE_S3_MAX_SOCKETS', 's3.maxSockets'],
  ['SLUICE_S3_PUT_DEADLINE_MS', 's3.putDeadlineMs'],
  ['SLUICE_S3_EXPRESS', 's3.express'],
  ['SLUICE_WAL_STORE_URL', 'walStoreUrl'],
  ['SLUICE_WAL_S3_ENDPOINT', 'walS3Endpoint'],
  ['SLUICE_HOST', 'host'],
  ['SLUICE_PORT', 'port'],
  ['SLUICE_METRICS_PORT', 'metricsPort'],
  ['SLUICE_ROLE', 'role'],
  ['SLUICE_QUEUES', 'queues'],
  ['SLUICE_TOKENS', 'tokens'],
  ['SLUICE_LOG_LEVEL', 'logLevel'],
  ['SLUICE_LOG_PRETTY', 'logPretty'],
  ['SLUICE_LOG_SYNC', 'logSync'],
  ['SLUICE_CLOUDWATCH_EMF', 'cloudwatchEmf'],
  ['SLUICE_WAL_GROUP_COMMIT', 'wal.groupCommit'],
  ['SLUICE_WAL_MAX_PUTS_IN_FLIGHT', 'wal.maxPutsInFlight'],
  ['SLUICE_WAL_PIPELINE_MIN_BYTES', 'wal.pipelineMinBytes'],
  ['SLUICE_WAL_PIPELINE_WAIT_MS', 'wal.pipelineWaitMs'],
  ['SLUICE_WAL_GROUP_COMMIT_MAX_BYTES', 'wal.groupCommitMaxBytes'],
  ['SLUICE_WAL_GROUP_COMMIT_MAX_ROWS', 'wal.groupCommitMaxRows'],
  ['SLUICE_WAL_PUT_TIMEOUT_MS', 'wal.putTimeoutMs'],
  ['SLUICE_WAL_HOLE_TIMEOUT_MS', 'wal.holeTimeoutMs'],
  ['SLUICE_FLUSH_MAX_RETRIES', 'flush.maxRetries'],
  ['SLUICE_FLUSH_RETRY_BASE_MS', 'flush.retryBaseMs'],
  ['SLUICE_FLUSH_RETRY_MAX_MS', 'flush.retryMaxMs'],
  ['SLUICE_MAX_UNFLUSHED_GENERATIONS', 'limits.maxUnflushedGenerations'],
  ['SLUICE_MAX_UNSEALED_BYTES', 'limits.maxUnsealedBytes'],
  ['SLUICE_MAX_BODY_BYTES', 'limits.maxBodyBytes'],
  ['SLUICE_MAX_ROWS_PER_REQUEST', 'limits.maxRowsPerRequest'],
  ['SLUICE_READ_CACHE_BYTES', 'limits.readCacheBytes'],
  ['SLUICE_SEARCH_CACHE_BYTES', 'limits.searchCacheBytes'],
  ['SLUICE_REQUEST_TIMEOUT_MS', 'http.requestTimeoutMs'],
  ['SLUICE_IDEMPOTENCY_TTL_SECONDS', 'http.idempotencyTtlSeconds'],
  ['SLUICE_SEAL_CONCURRENCY', 'workers.sealConcurrency'],
  ['SLUICE_FLUSH_CONCURRENCY', 'workers.flushConcurrency'],
  ['SLUICE_MERGE_CONCURRENCY', 'workers.mergeConcurrency'],
  ['SLUICE_LOCK_DURATION_MS', 'workers.lockDurationMs'],
  ['SLUICE_STALLED_INTERVAL_MS', 'workers.stalledIntervalMs'],
  ['SLUICE_MAX_STALLED_COUNT', 'workers.maxStalledCount'],
  ['SLUICE_SHUTDOWN_GRACE_SECONDS', 'workers.shutdownGraceSeconds'],
  ['SLUICE_SAMPLER_INTERVAL_SECONDS', 'scheduler.samplerIntervalSeconds'],
  ['SLUICE_PENDING_WARN_GENERATIONS', 'scheduler.pendingWarnGenerations'],
  ['SLUICE_PENDING_REJECT_GENERATIONS', 'scheduler.pendingRejectGenerations'],
  ['SLUICE_COOLDOWN_AFTER_FAILURES', 'scheduler.cooldownAfterFailures'],
  ['SLUICE_COOLDOWN_BASE_SECONDS', 'scheduler.cooldownBaseSeconds'],
  ['SLUICE_COOLDOWN_MAX_SECONDS', 'scheduler.cooldownMaxSeconds'],
  ['SLUICE_ATTENTION_AFTER_FAILURES', 'scheduler.attentionAfterFailures'],
  ['SLUICE_MERGE_QUEUE_BUDGET_SECONDS', 'scheduler.mergeQueueBudgetSeconds'],
  ['SLUICE_MERGE_CEILING_SECONDS', 'scheduler.mergeCeilingSeconds'],
  ['SLUICE_MERGE_NO_PROGRESS_SECONDS', 'scheduler.mergeNoProgressSeconds'],
  ['SLUICE_GC_GRACE_SECONDS', 'scheduler.gcGraceSeconds'],
  ['SLUICE_LOST_SEAL_SECONDS', 'scheduler.lostSealSeconds'],
];

/** Environment variables that hold JSON rather than a scalar. */
const JSON_ENV = new Set(['SLUICE_TOKENS']);
/** z.coerce.boolean would read "false" as true, so booleans are read by BOOLEAN_TEXT instead. */
const BOOLEAN_ENV = new Set([
  'SLUICE_S3_FORCE_PATH_STYLE',
  'SLUICE_S3_EXPRESS',
  'SLUICE_LOG_PRETTY',
  'SLUICE_LOG_SYNC',
  'SLUICE_CLOUDWATCH_EMF',
  'SLUICE_WAL_GROUP_COMMIT',
]);

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = {
  true: true,
  '1': true,
  yes: true,
  false: false,
  '0': false,
  no: false,
};
/** Read by no process: the bearer token the README's and the runbook's curl examples send. */
const CLIENT_ENV = new Set(['SLUICE_TOKEN']);

export function envNames(): string[] {
  return ENV.map(([name]) => name);
}

/** `SLUICE_*` variables of `env` that no setting reads: most likely a typo, warned about at start. */
export function unknownEnvNames(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(envNames());
  return Object.keys(env)
    .filter((name) => name.startsWith('SLUICE_') && !known.has(name) && !CLIENT_ENV.has(name))
    .sort();
}

/** The environment variable a config path comes from (`tokens.0.sha256` → `SLUICE_TOKENS[0].sha256`), else the path. */
function settingName(path: ReadonlyArray<PropertyKey>): string {
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length).join('.');
    const entry = ENV.find(([, configPath]) => configPath === prefix);
    if (entry) {
      const rest = path
        .slice(length)
        .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`));
      return `${entry[0]}${rest.join('')}`;
    }
  }
  return path.join('.');
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

function readEnvValue(name: string, raw: string): unknown {
  if (JSON_ENV.has(name)) {
    try {
      return JSON.parse(raw);
    } catch (err) {
      throw new SluiceError(
        'INVALID_CONFIG',
        `${name} is not valid JSON`,
        { variable: name },
        { cause: err },
      );
    }
  }
  if (BOOLEAN_ENV.has(name)) {
    const value = BOOLEAN_TEXT[raw.trim().toLowerCase()];
    if (value === undefined) {
      throw new SluiceError('INVALID_CONFIG', `${name} must be true, false, 1, 0, yes or no`, {
        variable: name,
      });
    }
    return value;
  }
  return raw;
}

/** Builds the config from the environment, then applies `overrides` (tests, embedding). */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<z.input<typeof ConfigSchema>> = {},
): Config {
  const input: Record<string, unknown> = {};
  for (const [name, path] of ENV) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') setPath(input, path, readEnvValue(name, raw));
  }
  const merged = deepMerge(input, overrides as Record<string, unknown>);
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: settingName(i.path), message: i.message }));
    throw new SluiceError(
      'INVALID_CONFIG',
      `invalid configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      { issues },
    );
  }
  if (parsed.data.wal.holeTimeoutMs <= parsed.data.wal.putTimeoutMs) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'SLUICE_WAL_HOLE_TIMEOUT_MS must be longer than SLUICE_WAL_PUT_TIMEOUT_MS',
      {
        holeTimeoutMs: parsed.data.wal.holeTimeoutMs,
        putTimeoutMs: parsed.data.wal.putTimeoutMs,
      },
    );
  }
  if (parsed.data.scheduler.lostSealSeconds * 1000 < 2 * parsed.data.wal.putTimeoutMs) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'SLUICE_LOST_SEAL_SECONDS must be at least twice SLUICE_WAL_PUT_TIMEOUT_MS (in seconds); raise the first or lower the second',
      {
        lostSealSeconds: parsed.data.scheduler.lostSealSeconds,
        putTimeoutMs: parsed.data.wal.putTimeoutMs,
      },
    );
  }
  return parsed.data;
}

/** Past this age a seq floor still serves writes, and is read again behind them. */
const SEQ_FLOOR_REFRESH_MS = 2_500;

/**
 * How long a writer may use the sealed-seq floor it read from the manifest: a quarter of
 * SLUICE_GC_GRACE_SECONDS. GC deletes a sealed WAL range only a grace after the seal that
 * covered it, so a put at a seq above a floor read at T is refused, never landed, at a
 * sealed seq until T plus the grace, however old the floor (docs/design.md, "The seq floor").
 */
export function seqFloorTtlMs(config: Pick<Config, 'scheduler'>): number {
  return (config.scheduler.gcGraceSeconds * 1000) / 4;
}

/** The age past which a floor in use is read again behind the writes it serves. */
export function seqFloorRefreshMs(config: Pick<Config, 'scheduler'>): number {
  return Math.min(SEQ_FLOOR_REFRESH_MS, seqFloorTtlMs(config) / 2);
}

function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

/**
 * Every failure Sluice reports carries a code. The code decides, in this one table, the
 * HTTP status a client sees and whether a job retry can help (I6: anything a retry
 * cannot clear fails at once).
 */
const CODES = {
  INVALID_REQUEST: { status: 400, retryable: false },
  INVALID_SCHEMA: { status: 400, retryable: false },
  /** A change of a table's columns that would not keep every stored row valid. */
  INVALID_SCHEMA_CHANGE: { status: 400, retryable: false },
  INVALID_ROWS: { status: 400, retryable: false },
  INVALID_TABLE_NAME: { status: 400, retryable: false },
  INVALID_KEY: { status: 400, retryable: false },
  INVALID_CURSOR: { status: 400, retryable: false },
  INVALID_CONFIG: { status: 400, retryable: false },
  /** The object store ignores conditional writes: Sluice refuses to run on it (it would lose data). */
  STORE_UNSAFE: { status: 500, retryable: false },
  INVALID_SETTINGS: { status: 400, retryable: false },
  /** An index declaration that does not fit the table: unknown column, a type the column cannot take. */
  INVALID_INDEX: { status: 400, retryable: false },
  /** A search that does not fit the table: a vector of another dimension, k out of range, no such column. */
  INVALID_SEARCH: { status: 400, retryable: false },
  /** A search filter Lance cannot run; the message quotes Lance. */
  INVALID_FILTER: { status: 400, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  TABLE_NOT_FOUND: { status: 404, retryable: false },
  KEY_NOT_FOUND: { status: 404, retryable: false },
  /** A lookup, delete or key range on an append-only table: its rows have no key. */
  TABLE_HAS_NO_KEY: { status: 404, retryable: false },
  JOB_NOT_FOUND: { status: 404, retryable: false },
  SHARD_NOT_FOUND: { status: 404, retryable: false },
  ROUTE_NOT_FOUND: { status: 404, retryable: false },
  TABLE_EXISTS: { status: 409, retryable: false },
  /** The column already has a declared index (or is the key, which has its btree). */
  INDEX_EXISTS: { status: 409, retryable: false },
  IDEMPOTENCY_CONFLICT: { status: 409, retryable: false },
  IDEMPOTENCY_UNSETTLED: { status: 409, retryable: false },
  /** A full-text search on a column whose declared index the base does not have yet: optimize builds it. */
  INDEX_NOT_BUILT: { status: 409, retryable: false },
  SHARD_NOT_POISONED: { status: 409, retryable: false },
  /** A dead letter's retry, refused while its shard is poisoned: reopen the shard first. */
  SHARD_STILL_POISONED: { status: 409, retryable: false },
  /** A manual merge of a drained table: drain means no new merge starts; undrain it first. */
  TABLE_DRAINED: { status: 409, retryable: false },
  /** A conditional put found the object present (put-if-absent) or changed (put-if-match). */
  PRECONDITION_FAILED: { status: 409, retryable: false },
  /** I3 backstop: a commit for any generation other than the manifest's current one. */
  GENERATION_GAP: { status: 409, retryable: false },
  /** A newer writer or commit superseded this one; a zombie must stop (I11). */
  FENCED: { status: 409, retryable: false },
  /** The table's base was written by a Sluice before the Lance base; the message names the fix. */
  BASE_FORMAT_OUTDATED: { status: 409, retryable: false },
  /** A scan cursor older than the GC grace period: its pinned versions may be gone; scan again. */
  CURSOR_EXPIRED: { status: 410, retryable: false },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false },
  TOO_MANY_ROWS: { status: 413, retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false },
  BACKPRESSURE: { status: 429, retryable: true },
  INTERNAL: { status: 500, retryable: true },
  /** The object store answered a concurrent-write conflict (S3 409); trying again clears it. */
  STORE_CONFLICT: { status: 503, retryable: true },
  STORE_UNAVAILABLE: { status: 503, retryable: true },
  REDIS_UNAVAILABLE: { status: 503, retryable: true },
  SHARD_POISONED: { status: 503, retryable: false },
  /** The writer's seq was declared a hole and tombstoned before its entry landed. */
  WRITE_ABANDONED: { status: 503, retryable: true },
  READ_AMPLIFICATION: { status: 503, retryable: true },
  /** Merges and GC moved the table on faster than a read could take its snapshot; read again. */
  SNAPSHOT_MOVED: { status: 503, retryable: true },
  ABORTED: { status: 503, retryable: true },
  DATA_MISSING: { status: 500, retryable: false },
  DATA_CORRUPT: { status: 500, retryable: false },
  /**
   * An object names a schema version newer than the definition this process holds: the
   * definition is read again and the work retried (TableLookup).
   */
  SCHEMA_OUTDATED: { status: 503, retryable: true },
  /** A filter on a column the base gets at its next merge, which is asked for when the column is added. */
  SCHEMA_CHANGE_PENDING: { status: 503, retryable: true },
  TIMEOUT: { status: 504, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof CODES;

export class SluiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SluiceError';
  }

  get status(): number {
    return CODES[this.code].status;
  }

  get retryable(): boolean {
    return CODES[this.code].retryable;
  }

  toJSON(): { code: ErrorCode; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function isSluiceError(err: unknown, code?: ErrorCode): err is SluiceError {
  return err instanceof SluiceError && (code === undefined || err.code === code);
}

/**
 * Anything that is not a SluiceError is treated as an unexpected, retryable failure, except
 * Redis out of reach, which says so: a client then retries a 503, not a 500.
 */
export function toSluiceError(err: unknown): SluiceError {
  if (err instanceof SluiceError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new SluiceError(isRedisOutage(err) ? 'REDIS_UNAVAILABLE' : 'INTERNAL', message, {}, { cause: err });
}

/**
 * How ioredis reports a node or a cluster slot out of reach: a master failing over
 * (CLUSTERDOWN, a closed connection, redirections run out), a node still loading or read
 * only after a switch. Known by its message, so that this floor imports no Redis client.
 */
const REDIS_OUTAGE =
  /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY) |^Too many Cluster redirections|^Connection is closed\.$|^Reached the max retries per request limit/;

function isRedisOutage(err: unknown): boolean {
  return err instanceof Error && REDIS_OUTAGE.test(err.message);
}

export function statusOf(code: ErrorCode): number {
  return CODES[code].status;
}

/** Every code, for the documentation that lists them. */
export const ERROR_CODES = Object.keys(CODES) as ErrorCode[];

/**
 * The wire shapes of the HTTP API as zod schemas: the OpenAPI document is generated from
 * them (routes.ts), every request body envelope, path, query and header parameter is parsed
 * with them (wire-input.ts), and the TypeScript client's types are generated from that
 * document. Rows and keys stay opaque here: their shape is the table's schema, checked by
 * the domain, as are a table definition's columns and settings (docs/design.md, "HTTP API").
 */

import { z } from '@hono/zod-openapi';
import { TableSettingsSchema } from '../../shared/config.ts';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.ts';
import { MAX_PAGE } from '../../shared/page-limit.ts';
import { isPlainObject } from '../../shared/plain-object.ts';
import { INDEX_TYPES, METRICS } from '../../shared/table/index-decl.ts';
import { MIN_RETENTION_SECONDS } from '../../shared/table/retention.ts';
import { DEFAULT_SHARDS, MAX_SHARDS } from '../../shared/table/table-def.ts';
import { invalidTableNameMessage, TABLE_NAME_PATTERN } from '../../shared/table/table-name.ts';

const [FIRST_CODE, ...OTHER_CODES] = ERROR_CODES as [ErrorCode, ...ErrorCode[]];

export const ErrorCodeSchema = z.enum([FIRST_CODE, ...OTHER_CODES]).openapi('ErrorCode');

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .openapi('Error');

const timestamp = z.string().openapi({ format: 'date-time' });
const cursor = z
  .string()
  .nullable()
  .openapi({ description: 'Opaque cursor of the next page; null on the last.' });

export const TableNameSchema = z
  .string({ error: (issue) => invalidTableNameMessage(issue.input) })
  .regex(TABLE_NAME_PATTERN, { error: (issue) => invalidTableNameMessage(issue.input) })
  .openapi('TableName', { example: 'events' });

export const FieldSchema = z
  .strictObject({
    name: z.string().openapi({ example: 'id' }),
    type: z.string().openapi({
      description:
        'int32 int64 float32 float64 bool utf8 binary timestamp[ms] timestamp[us] vector[float32, DIM]',
      example: 'int64',
    }),
    nullable: z
      .boolean()
      .optional()
      .openapi({ description: 'Defaults to false for key columns, true otherwise.' }),
  })
  .openapi('Field');

/**
 * The per-table settings by the names of the one TableSettingsSchema. That schema coerces
 * (it reads environment strings too); on the wire each setting is a JSON number.
 */
const settingsShape = Object.fromEntries(
  Object.keys(TableSettingsSchema.shape).map((name) => [name, z.number().int().min(0)]),
);

export const TableSettingsSchemaWire = z.object(settingsShape).strict().openapi('TableSettings');

const fieldsRefusal = { error: 'schema.fields must be a non-empty array' };
const primaryKeyRefusal = {
  error: 'primaryKey must be an array of column names, or [] for an append-only table',
};
const shardsRefusal = { error: `shards must be an integer from 1 to ${MAX_SHARDS}` };
const retentionRefusal = {
  error: `retention must be {"column": <a timestamp column>, "maxAgeSeconds": <an integer ≥ ${MIN_RETENTION_SECONDS}>}`,
};

export const RetentionSchema = z
  .strictObject(
    {
      column: z.string(retentionRefusal),
      maxAgeSeconds: z
        .number(retentionRefusal)
        .int(retentionRefusal)
        .min(MIN_RETENTION_SECONDS, retentionRefusal),
    },
    retentionRefusal,
  )
  .openapi('Retention', {
    description:
      'Rows whose column (a timestamp, not nullable, not a key column) is older than maxAgeSeconds are never read, and the merge lane deletes them from the base',
  });

/** The envelope of a table definition; its columns, key and settings are checked by the domain. */
export const CreateTableSchema = z
  .strictObject({
    name: TableNameSchema,
    schema: z.strictObject(
      { fields: z.array(FieldSchema, fieldsRefusal).min(1, fieldsRefusal) },
      { error: 'schema must be an object {"fields":[…]}' },
    ),
    primaryKey: z.array(z.string(), primaryKeyRefusal).optional().openapi({
      description:
        'Key columns: int32, int64 or utf8. Omitted or [] makes an append-only table: every row is kept, none is looked up or deleted by key.',
    }),
    shards: z
      .number(shardsRefusal)
      .int(shardsRefusal)
      .min(1, shardsRefusal)
      .max(MAX_SHARDS, shardsRefusal)
      .optional()
      .openapi({
        description: `Defaults to ${DEFAULT_SHARDS}; fixed for the table's life. A shard is one WAL and one flush lane: more shards flush in parallel, and a write makes one WAL entry per shard its rows touch, unless walLane is "table".`,
      }),
    settings: z.object(settingsShape).partial().strict().optional(),
    indexes: z
      .array(z.unknown())
      .optional()
      .openapi({ description: 'Indexes to build on the base, each an IndexDeclaration' }),
    retention: RetentionSchema.nullable().optional(),
    walLane: z.enum(['shard', 'table'], { error: 'walLane must be "shard" or "table"' }).optional().openapi({
      description:
        'Where writes go; fixed for the table\'s life. "table": one WAL entry per write request whatever shards its rows touch, all of them or none applied (one PUT, one Redis call); "shard" (the default): one entry per shard the rows touch. Tables with a primary key only.',
    }),
  })
  .openapi('CreateTable');

export const IndexDeclarationSchema = z
  .object({
    column: z.string(),
    type: z.enum(INDEX_TYPES).openapi({
      description:
        'btree or bitmap on a scalar column, ivf_pq or ivf_hnsw_sq on a vector column, fts (full text) on a utf8 column',
    }),
    metric: z.enum(METRICS).optional().openapi({ description: 'Vector indexes only; l2 when absent' }),
    params: z
      .object({ numPartitions: z.number().int().optional(), numSubVectors: z.number().int().optional() })
      .optional(),
  })
  .openapi('IndexDeclaration');

export const DeclaredIndexSchema = z
  .object({
    index: IndexDeclarationSchema,
    jobId: z.string().nullable().openapi({
      description: 'The merge-lane job that builds it (null on a drained table: it is built once undrained)',
    }),
  })
  .openapi('DeclaredIndex');

const FieldWireSchema = z.object({
  name: z.string(),
  type: z.string(),
  nullable: z.boolean(),
  default: z.unknown().optional(),
});

const AlterSchema = z.object({
  name: z.string(),
  type: z.string().optional().openapi({ description: 'int32 → int64 or float32 → float64' }),
  nullable: z.literal(true).optional(),
});

export const SchemaChangeSchema = z
  .object({
    add: z
      .array(
        z.object({
          name: z.string(),
          type: z.string().openapi({ description: 'A column type, as in a create' }),
          nullable: z.boolean().optional().openapi({ description: 'true unless a default is given' }),
          default: z.unknown().optional().openapi({
            description:
              'A number, bool or utf8 column may have one: writes leaving the column out get it, and every row stored before reads it',
          }),
        }),
      )
      .optional(),
    alter: z.array(AlterSchema).optional(),
  })
  .openapi('SchemaChange', {
    description:
      'Columns to add, each nullable (rows written before read null) or with a default (they read it), and columns to widen (int32 → int64, float32 → float64) or make nullable. Narrowing, renames and drops are refused.',
  });

const SchemaChangeRecordSchema = z
  .object({
    schemaVersion: z.number().int(),
    at: timestamp,
    change: z.object({
      add: z.array(FieldWireSchema),
      alter: z
        .array(
          z.object({
            name: z.string(),
            type: z.string(),
            nullable: z.boolean(),
            was: z.object({ type: z.string(), nullable: z.boolean() }),
          }),
        )
        .optional(),
    }),
  })
  .openapi('SchemaChangeRecord');

export const ColumnsAddedSchema = z
  .object({
    schemaVersion: z.number().int(),
    schema: z.object({ fields: z.array(FieldWireSchema) }),
    jobId: z.string().nullable().openapi({
      description:
        'The merge-lane job that gives the base the columns (null when nothing changed, or on a drained table)',
    }),
  })
  .openapi('ColumnsAdded');

const BaseHealthSchema = z
  .object({
    version: z.number().int().openapi({ description: 'The latest Lance version, measured' }),
    versions: z.number().int().openapi({ description: 'Lance versions the base keeps' }),
    rows: z.number().int(),
    fragments: z.number().int(),
    smallFragments: z.number().int().openapi({ description: 'Fragments an optimize would compact' }),
    indexes: z.array(
      z.object({
        name: z.string(),
        columns: z.array(z.string()),
        type: z.string(),
        indexedRows: z.number().int(),
        unindexedRows: z.number().int(),
      }),
    ),
  })
  .openapi('BaseHealth', { description: "The base's fragments and each index's coverage" });

export const TableStatsSchema = z
  .strictObject({
    baseVersion: z.number().int().openapi({ description: "Version of Sluice's record of the base" }),
    baseLanceVersion: z.number().int().nullable().openapi({
      description: 'The Lance version of the base dataset that record names; null before the first merge',
    }),
    baseRows: z.number().int().openapi({
      description:
        'Live rows of the base dataset alone (each key once, deleted keys not at all); GET …/rows/count counts pending rows too',
    }),
    pendingGenerations: z.number().int(),
    poisonedShards: z.number().int(),
    sealedGenerations: z.number().int(),
    committedGenerations: z.number().int(),
    sealedRows: z.number().int(),
    committedRows: z.number().int(),
    unsealedEntries: z.number().int(),
    unsealedBytes: z.number().int(),
    pendingRows: z.number().int().openapi({
      description:
        'Rows of the committed generations not yet merged; 0 with no pending generation: the base has caught up',
    }),
    base: BaseHealthSchema.nullable(),
  })
  .openapi('TableStats');

export const TableDescriptionSchema = z
  .object({
    formatVersion: z.number().int(),
    name: TableNameSchema,
    schema: z.object({
      fields: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
    }),
    schemaVersion: z
      .number()
      .int()
      .openapi({ description: '1 as created; one more with each change of the columns' }),
    schemaHistory: z.array(SchemaChangeRecordSchema),
    primaryKey: z.array(z.string()),
    shards: z.number().int(),
    settings: TableSettingsSchemaWire,
    createdAt: timestamp,
    indexes: z.array(IndexDeclarationSchema).openapi({
      description: 'Every declared index; stats.base.indexes says how many rows each covers',
    }),
    retention: RetentionSchema.nullable(),
    drain: z.boolean(),
    stats: TableStatsSchema,
  })
  .openapi('TableDescription');

export const TablePageSchema = z
  .object({ items: z.array(TableDescriptionSchema), next: cursor })
  .openapi('TablePage');

/** Taken as it is, never copied: the domain checks its columns against the table's schema. */
export const RowSchema = z
  .custom<Record<string, unknown>>(isPlainObject, { error: 'a row must be a JSON object of column values' })
  .openapi('Row', {
    type: 'object',
    additionalProperties: {},
    description: 'One row, keyed by column; values in the JSON forms of the column types.',
  });

const rowsRefusal = { error: '"rows" must be a non-empty array of row objects' };

export const RowsBodySchema = z
  .strictObject({ rows: z.array(RowSchema, rowsRefusal).min(1, rowsRefusal) })
  .openapi('RowsBody');

export const KeySchema = z.unknown().openapi('Key', {
  description: 'A one-column primary key value, or an array of values in primary-key order.',
});

const keysRefusal = { error: '"keys" must be a non-empty array' };

export const KeysBodySchema = z
  .strictObject({ keys: z.array(KeySchema, keysRefusal).min(1, keysRefusal) })
  .openapi('KeysBody');

export const AckSchema = z
  .object({
    acked: z.number().int(),
    shards: z.array(z.object({ shard: z.number().int(), seq: z.number().int() })),
  })
  .openapi('Ack');

export const LookupSchema = z.object({ row: RowSchema }).openapi('Lookup');

export const ScanPageSchema = z.object({ rows: z.array(RowSchema), next: cursor }).openapi('ScanPage');

const GenerationFields = {
  generation: z.number().int(),
  walFrom: z.number().int(),
  walTo: z.number().int(),
  walRows: z.number().int(),
  walBytes: z.number().int(),
  sealedAt: timestamp,
};

export const PoisonSchema = z
  .object({
    code: ErrorCodeSchema,
    generation: z.number().int().nullable(),
    cause: z.string(),
    at: timestamp,
    jobId: z.string().optional(),
  })
  .openapi('Poison');

export const ShardStatsSchema = z
  .object({
    table: TableNameSchema,
    shard: z.number().int(),
    frontier: z.number().int(),
    walCursor: z.number().int(),
    sealedThrough: z.number().int(),
    allocatedThrough: z.number().int().nullable(),
    currentGeneration: z.number().int(),
    sealed: z.array(z.object(GenerationFields)),
    committed: z.array(
      z.object({
        ...GenerationFields,
        path: z.string(),
        rows: z.number().int(),
        bytes: z.number().int(),
        committedAt: timestamp,
      }),
    ),
    mergedThrough: z.number().int(),
    pendingGenerations: z.number().int(),
    unsealedEntries: z.number().int(),
    unsealedBytes: z.number().int(),
    manifestVersion: z.number().int(),
    poison: PoisonSchema.nullable(),
  })
  .openapi('ShardStats');

export const DeadLetterSchema = z
  .object({
    id: z.string(),
    queue: z.string(),
    target: z.string(),
    jobId: z.string(),
    jobName: z.string(),
    data: z.unknown(),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
    stack: z.string().nullable(),
    attempts: z.number().int(),
    enqueuedAt: timestamp,
    lastStartedAt: timestamp.nullable(),
    failedAt: timestamp,
  })
  .openapi('DeadLetter');

export const DeadLetterPageSchema = z
  .object({ items: z.array(DeadLetterSchema), next: cursor })
  .openapi('DeadLetterPage');

export const DeadLetterRetrySchema = z
  .object({ id: z.string(), queue: z.string(), target: z.string(), status: z.literal('requeued') })
  .openapi('DeadLetterRetry');

export const MergeRequestedSchema = z.object({ jobId: z.string() }).openapi('MergeRequested');

export const MergeProgressSchema = z
  .object({
    rowsDone: z.number().int(),
    rowsTotal: z.number().int(),
    bytesDone: z.number().int(),
    bytesTotal: z.number().int(),
  })
  .openapi('MergeProgress');

const BacklogSchema = z
  .object({
    generations: z.number().int(),
    rows: z.number().int(),
    oldestCommittedAt: z.number().int().nullable().openapi({ description: 'ms since the epoch' }),
  })
  .openapi('Backlog');

const LaneOptimizeSchema = z
  .object({
    reason: z.enum(['requested', 'indexes', 'merges', 'small-fragments', 'unindexed-rows', 'caught-up']),
    lanceVersion: z.number().int().nullable().optional(),
    conflicts: z.number().int().optional(),
    skipped: z.enum(['cooldown', 'drained']).optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .openapi('LaneOptimize', {
    description:
      'The optimize this job ran after its merge and why: its recorded Lance version (null: a merge preempted it every try), or why it was skipped, or its error.',
  });

export const MergeLaneResultSchema = z
  .object({
    status: z.enum(['done', 'drained', 'dropped']),
    merged: z
      .object({
        generations: z.number().int(),
        rows: z.number().int(),
        lanceVersion: z.number().int().nullable(),
      })
      .optional(),
    pending: BacklogSchema.optional().openapi({
      description: 'Committed generations still pending after this merge; 0 generations: caught up',
    }),
    retention: z
      .object({
        deleted: z.number().int(),
        expiredBefore: z.number().int().nullable().openapi({ description: 'ms since the epoch' }),
        lanceVersion: z.number().int().nullable(),
      })
      .nullable()
      .optional()
      .openapi({
        description:
          'Rows past retention this job deleted from the base, and below which time none is left; null for a table without retention',
      }),
    optimize: LaneOptimizeSchema.nullable().optional(),
  })
  .openapi('MergeLaneResult');

export const MergeStatusSchema = z
  .object({
    id: z.string(),
    table: TableNameSchema,
    state: z.string().openapi({
      description: 'The job state: waiting, delayed, active, completed or failed.',
      example: 'active',
    }),
    progress: MergeProgressSchema.nullable(),
    result: MergeLaneResultSchema.nullable(),
    failedReason: z.string().nullable(),
    createdAt: timestamp.nullable(),
    finishedAt: timestamp.nullable(),
  })
  .openapi('MergeStatus');

export const DroppedTableSchema = z
  .object({
    name: TableNameSchema,
    droppedAt: timestamp,
    purgeAfter: timestamp.openapi({
      description: 'When the data may be deleted: the drop plus the GC grace.',
    }),
  })
  .openapi('DroppedTable');

export const DrainBodySchema = z.object({ drain: z.boolean() }).strict().openapi('DrainBody');

export const DrainStateSchema = z
  .object({ table: TableNameSchema, drain: z.boolean() })
  .openapi('DrainState');

const LastErrorSchema = z.object({ code: z.string(), message: z.string() });
const WorkKindSchema = z.string().openapi({ example: 'merge' });
const FailureClassSchema = z.enum(['retryable', 'deadline', 'data-or-configuration']);

export const CooldownPageSchema = z
  .object({
    items: z.array(
      z.object({
        kind: WorkKindSchema,
        target: z.string(),
        failures: z.number().int(),
        until: timestamp,
        lastError: LastErrorSchema,
        class: FailureClassSchema,
        needsAttention: z.boolean(),
      }),
    ),
    next: cursor,
  })
  .openapi('CooldownPage');

export const MergeFailurePageSchema = z
  .object({
    items: z.array(
      z.object({
        kind: WorkKindSchema,
        target: z.string(),
        failures: z.number().int(),
        class: FailureClassSchema,
        lastError: LastErrorSchema,
        firstFailureAt: timestamp,
        lastFailureAt: timestamp,
        cooldownUntil: timestamp.nullable(),
        needsAttention: z.boolean(),
      }),
    ),
    next: cursor,
  })
  .openapi('MergeFailurePage');

export const HealthSchema = z.object({ status: z.literal('ok') }).openapi('Health');

export const TableParamsSchema = z.object({ t: TableNameSchema });

export const ShardParamsSchema = TableParamsSchema.extend({
  s: z
    .string()
    .regex(/^\d{1,5}$/, { error: 'the shard must be a shard index (0, 1, …)' })
    .transform(Number)
    .openapi({ example: '0' }),
});

export const JobParamsSchema = TableParamsSchema.extend({ jobId: z.string() });

export const DeadLetterParamsSchema = z.object({ id: z.string().openapi({ example: 'flush-42' }) });

export const IdempotencyHeaderSchema = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, {
      // Printable ASCII, as in the IETF Idempotency-Key draft's examples; long enough for any UUID scheme.
      error: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
    })
    .optional()
    .openapi({
      description: 'A retry of the same request with this key answers the first ack and writes nothing.',
    }),
});

const LIMIT_TEXT = /^\d{1,7}$/;

/** `limit`: 1 to `max` items, `fallback` when absent. */
function limitParam(
  max: number,
  fallback: number,
  description = `Items per page: 1 to ${max}, ${fallback} when absent.`,
) {
  return z
    .string()
    .refine((text) => LIMIT_TEXT.test(text) && Number(text) >= 1 && Number(text) <= max, {
      error: `limit must be an integer from 1 to ${max}`,
      params: { max },
    })
    .optional()
    .transform((text) => (text === undefined ? fallback : Number(text)))
    .openapi({
      description,
      pattern: LIMIT_TEXT.source,
      example: String(Math.min(100, max)),
    });
}

/** `after`: the previous page's cursor; absent or empty, the first page. */
const afterParam = z
  .string()
  .optional()
  .transform((text) => text || null)
  .openapi({ description: "The previous page's `next`." });

/** The query of every listing (tables, dead letters, the scheduler ledger): one page cap (I17). */
export const PageQuerySchema = z.object({ limit: limitParam(MAX_PAGE, MAX_PAGE), after: afterParam });

export const ColumnsQuerySchema = z.object({
  columns: z
    .string()
    .optional()
    .transform((text) => {
      if (text === undefined) return null;
      return text === '' ? [] : text.split(',').map((name) => name.trim());
    })
    .openapi({
      description: 'The columns to answer, comma-separated, in that order; every column when absent.',
      example: 'id,name',
    }),
});

/**
 * A key as a query parameter is JSON — a scalar, or an array for a composite key; text that
 * is not JSON is a string. The domain checks it against the table's key.
 */
function keyText(text: string): unknown {
  // A bare integer beyond 2^53 would lose digits as a JSON number; int64 keys take it as text.
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const keyParam = (description: string) =>
  z
    .string()
    .optional()
    .transform((text) => (text === undefined ? undefined : keyText(text)))
    .openapi({ description });

/** Rows of a scan page; Arrow pages are columnar and need no per-row JSON encoding, so they may hold ten times as many. */
export const MAX_SCAN_LIMIT = 1000;
export const MAX_ARROW_SCAN_LIMIT = 10_000;
const DEFAULT_SCAN_LIMIT = 100;

function rowsQuerySchema(maxLimit: number) {
  return ColumnsQuerySchema.extend({
    limit: limitParam(
      maxLimit,
      DEFAULT_SCAN_LIMIT,
      `Rows per page: 1 to ${MAX_SCAN_LIMIT} in JSON, to ${MAX_ARROW_SCAN_LIMIT} in Arrow; ${DEFAULT_SCAN_LIMIT} when absent.`,
    ),
    after: afterParam,
    key: keyParam(
      'A point lookup: the key as JSON (a number, a quoted string, or an array for a composite key); goes without limit, after, from and to. Several keys: POST …/rows/lookup.',
    ),
    from: keyParam('A scan from this key on (inclusive), as JSON like `key`.'),
    to: keyParam('A scan up to this key (exclusive), as JSON like `key`.'),
  });
}

/** The read query of a JSON answer (the one the document shows, its limit described for both), and of an Arrow one. */
export const RowsQuerySchema = rowsQuerySchema(MAX_SCAN_LIMIT);
export const ArrowRowsQuerySchema = rowsQuerySchema(MAX_ARROW_SCAN_LIMIT);

export const SearchBodySchema = z
  .strictObject({
    vector: z
      .array(z.number())
      .min(1)
      .optional()
      .openapi({ description: 'Nearest neighbours of this vector' }),
    column: z
      .string()
      .optional()
      .openapi({ description: "The vector column; the table's only one when absent" }),
    metric: z.enum(METRICS).optional().openapi({
      description: "l2, cosine or dot; the declared vector index's metric, else l2, when absent",
    }),
    nprobes: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'IVF partitions to probe on an indexed base' }),
    refineFactor: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Re-rank this many times k by exact distance' }),
    text: z.string().optional().openapi({ description: 'Full-text search for these words' }),
    textColumn: z
      .string()
      .optional()
      .openapi({ description: 'The column with a declared fts index; the only one when absent' }),
    k: z.number().int().optional().openapi({ description: 'Rows to answer, 1 to 1000; 10 when absent' }),
    filter: z
      .string()
      .optional()
      .openapi({ description: "A Lance SQL filter, e.g. category = 'a' AND score > 0.5" }),
    columns: z.array(z.string()).optional().openapi({ description: 'The columns to answer, in this order' }),
    withDistance: z.boolean().optional().openapi({
      description: 'Answer `_distance` (vector) or `_score` (text) with each row; true when absent',
    }),
  })
  .openapi('SearchBody');

export const SearchResultSchema = z
  .object({
    rows: z.array(RowSchema).openapi({
      description:
        'Best first, at most k, the newest value per key and no deleted row; each with `_distance` (vector: smaller is nearer) or `_score` (text: larger is better)',
    }),
    next: z.string().optional().openapi({
      description:
        'A search by filter alone: the cursor of the next page (pass it as `after` with the same filter); absent on the last page',
    }),
  })
  .openapi('SearchResult');

export const LookupManySchema = z
  .object({
    rows: z
      .array(RowSchema)
      .openapi({ description: 'The rows found, in the order their keys were asked, each once.' }),
    missing: z.array(KeySchema).openapi({ description: 'The keys asked for with no live row, as given.' }),
  })
  .openapi('LookupMany');

export const RowCountSchema = z
  .object({
    table: TableNameSchema,
    rows: z
      .number()
      .int()
      .openapi({ description: 'Live rows: base and pending, each key once, deletes applied.' }),
    baseRows: z.number().int().openapi({ description: 'Live rows of the base dataset alone.' }),
    pendingKeys: z
      .number()
      .int()
      .openapi({ description: 'Distinct keys written or deleted since the base version (not yet merged).' }),
  })
  .openapi('RowCount');

/**
 * The wire shapes of the HTTP API as zod schemas: the OpenAPI document is generated from
 * them (routes.ts), the envelope checks of request bodies and queries parse with them
 * (wire-input.ts), and the TypeScript client's types are generated from that document.
 * Rows and keys stay `unknown` here: their shape is the table's schema, checked by the domain.
 */
import { z } from '@hono/zod-openapi';
import { TableSettingsSchema } from '../../shared/config.ts';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.ts';
import { TABLE_NAME_PATTERN } from '../../shared/table/table-name.ts';

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
  .string()
  .regex(TABLE_NAME_PATTERN)
  .openapi('TableName', { example: 'events' });

export const FieldSchema = z
  .object({
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
  Object.keys(TableSettingsSchema.shape).map((name) => [
    name,
    name === 'compactMaxDeadRatio' ? z.number().min(0).max(1) : z.number().int().min(0),
  ]),
);

export const TableSettingsSchemaWire = z.object(settingsShape).strict().openapi('TableSettings');

export const CreateTableSchema = z
  .object({
    name: TableNameSchema,
    schema: z.object({ fields: z.array(FieldSchema).min(1) }),
    primaryKey: z.array(z.string()).min(1).openapi({ description: 'Key columns: int32, int64 or utf8.' }),
    shards: z.number().int().min(1).max(1024).optional().openapi({ description: 'Defaults to 4.' }),
    settings: z.object(settingsShape).partial().strict().optional(),
  })
  .openapi('CreateTable');

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
  })
  .openapi('TableStats');

export const TableDescriptionSchema = z
  .object({
    formatVersion: z.number().int(),
    name: TableNameSchema,
    schema: z.object({
      fields: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
    }),
    primaryKey: z.array(z.string()),
    shards: z.number().int(),
    settings: TableSettingsSchemaWire,
    createdAt: timestamp,
    drain: z.boolean(),
    stats: TableStatsSchema,
  })
  .openapi('TableDescription');

export const TablePageSchema = z
  .object({ items: z.array(TableDescriptionSchema), next: cursor })
  .openapi('TablePage');

export const RowSchema = z
  .record(z.string(), z.unknown())
  .openapi('Row', { description: 'One row, keyed by column; values in the JSON forms of the column types.' });

export const RowsBodySchema = z
  .object({ rows: z.array(RowSchema) })
  .strict()
  .openapi('RowsBody');

export const KeySchema = z.unknown().openapi('Key', {
  description: 'A one-column primary key value, or an array of values in primary-key order.',
});

export const KeysBodySchema = z
  .object({ keys: z.array(KeySchema).min(1) })
  .strict()
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

export const MergeStatusSchema = z
  .object({
    id: z.string(),
    table: TableNameSchema,
    state: z.string().openapi({
      description: 'The job state: waiting, delayed, active, completed or failed.',
      example: 'active',
    }),
    progress: MergeProgressSchema.nullable(),
    result: z.unknown(),
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

export const PageQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d{1,7}$/)
    .optional()
    .openapi({ description: 'Items per page.', example: '100' }),
  after: z.string().optional().openapi({ description: "The previous page's `next`." }),
});

export const ColumnsQuerySchema = z.object({
  columns: z.string().optional().openapi({
    description: 'The columns to answer, comma-separated, in that order; every column when absent.',
    example: 'id,name',
  }),
});

const keyBound = (description: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `${description}, as JSON like \`key\`.` });

export const RowsQuerySchema = PageQuerySchema.extend(ColumnsQuerySchema.shape).extend({
  key: z.string().optional().openapi({
    description:
      'A point lookup: the key as JSON (a number, a quoted string, or an array for a composite key); goes without limit, after, from and to. Several keys: POST …/rows/lookup.',
  }),
  from: keyBound('A scan from this key on (inclusive)'),
  to: keyBound('A scan up to this key (exclusive)'),
});

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

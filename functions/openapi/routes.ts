/**
 * Every route of the HTTP API as an OpenAPI route: its scope, parameters, bodies, answers
 * and the error codes each status can carry. The document (document.ts) is built from
 * this list; a test checks that it names exactly the routes the app serves.
 */

import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { type ErrorCode, statusOf } from '../../shared/errors.ts';
import { MAX_PAGE } from '../../shared/page-limit.ts';
import { ARROW_STREAM } from '../body.ts';
import {
  AckSchema,
  ColumnsAddedSchema,
  ColumnsQuerySchema,
  CooldownPageSchema,
  CreateTableSchema,
  DeadLetterPageSchema,
  DeadLetterParamsSchema,
  DeadLetterRetrySchema,
  DeadLetterSchema,
  DeclaredIndexSchema,
  DrainBodySchema,
  DrainStateSchema,
  DroppedTableSchema,
  ErrorBodySchema,
  HealthSchema,
  IdempotencyHeaderSchema,
  IndexDeclarationSchema,
  JobParamsSchema,
  KeysBodySchema,
  LookupManySchema,
  LookupSchema,
  MergeFailurePageSchema,
  MergeRequestedSchema,
  MergeStatusSchema,
  PageQuerySchema,
  RowCountSchema,
  RowsBodySchema,
  RowsQuerySchema,
  ScanPageSchema,
  SchemaChangeSchema,
  SearchBodySchema,
  SearchResultSchema,
  ShardParamsSchema,
  ShardStatsSchema,
  TableDescriptionSchema,
  TablePageSchema,
  TableParamsSchema,
} from './schemas.ts';

type Scope = 'read' | 'write' | 'admin';
type Responses = RouteConfig['responses'];
type ResponseConfig = Exclude<Responses[string], { $ref: string }>;

const STATUS_OF_CODES: Record<number, string> = {
  400: 'Bad input; nothing was written',
  401: 'No, malformed or unknown bearer token',
  403: 'The token lacks the scope of the route',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone: start again',
  413: 'Too large',
  415: 'Unsupported Content-Type',
  429: 'Backpressure: retry after `Retry-After` seconds',
  500: 'Internal failure',
  503: 'Unavailable: retry, or see the code',
  504: 'The request ran past the deadline; a write may have landed, retry it',
};

/** What any route of the API can answer, whatever it does. */
const ANY_ROUTE: ErrorCode[] = ['INTERNAL', 'STORE_UNAVAILABLE', 'REDIS_UNAVAILABLE', 'TIMEOUT'];
const AUTHED: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN'];
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const } },
};

/** The error answers of a route, one per status, each naming the codes it carries. */
function errors(codes: ErrorCode[]): Responses {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Responses = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `${STATUS_OF_CODES[status]}: ${list.join(', ')}`,
      content: { 'application/json': { schema: ErrorBodySchema } },
      ...(list.includes('BACKPRESSURE') ? { headers: RETRY_AFTER } : {}),
    };
  }
  return responses;
}

function json(description: string, schema: z.ZodType, headers?: ResponseConfig['headers']): ResponseConfig {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}

interface Spec {
  method: 'get' | 'post' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  scope: Scope | null;
  request?: RouteConfig['request'];
  ok: Responses;
  codes?: ErrorCode[];
}

/** The request and the status routes of one kind of merge-lane job (functions/table-work.ts). */
function laneJobRoutes(
  work: 'merge' | 'optimize',
  text: { summary: string; job: string; statusSummary: string },
): RouteConfig[] {
  return [
    route({
      method: 'post',
      path: `/v1/tables/{t}/${work}`,
      operationId: `${work}Table`,
      summary: text.summary,
      scope: 'admin',
      request: { params: TableParamsSchema },
      ok: {
        202: json(`${text.job} that will run it`, MergeRequestedSchema, {
          Location: { description: 'Its status', schema: { type: 'string' } },
        }),
      },
      codes: ['INVALID_TABLE_NAME', 'TABLE_NOT_FOUND', 'TABLE_DRAINED'],
    }),
    route({
      method: 'get',
      path: `/v1/tables/{t}/${work}/{jobId}`,
      operationId: `${work}Status`,
      summary: text.statusSummary,
      scope: 'admin',
      request: { params: JobParamsSchema },
      ok: { 200: json(text.job, MergeStatusSchema) },
      codes: ['INVALID_TABLE_NAME', 'TABLE_NOT_FOUND', 'JOB_NOT_FOUND'],
    }),
  ];
}

function route(spec: Spec): RouteConfig {
  return createRoute({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.scope ? `Scope: \`${spec.scope}\`.` : 'No token needed.',
    tags: [spec.path.split('/')[2] ?? 'service'],
    ...(spec.scope ? { security: [{ bearer: [] }] } : { security: [] }),
    ...(spec.request ? { request: spec.request } : {}),
    responses: {
      ...spec.ok,
      ...errors([...ANY_ROUTE, ...(spec.scope ? AUTHED : []), ...(spec.codes ?? [])]),
    },
  });
}

const replayed = {
  'Idempotent-Replayed': {
    description: '`true` when this is the first ack, replayed',
    schema: { type: 'string' as const },
  },
};
const arrowBody = { schema: { type: 'string', format: 'binary' } } as const;
const WRITE_CODES: ErrorCode[] = [
  'INVALID_REQUEST',
  'INVALID_TABLE_NAME',
  'TABLE_NOT_FOUND',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_UNSETTLED',
  'PAYLOAD_TOO_LARGE',
  'TOO_MANY_ROWS',
  'UNSUPPORTED_MEDIA_TYPE',
  'BACKPRESSURE',
  'SHARD_POISONED',
  'WRITE_ABANDONED',
  'STORE_CONFLICT',
  'ABORTED',
];
const READ_CODES: ErrorCode[] = [
  'INVALID_REQUEST',
  'INVALID_TABLE_NAME',
  'TABLE_NOT_FOUND',
  'SHARD_POISONED',
  'READ_AMPLIFICATION',
  'DATA_MISSING',
  'DATA_CORRUPT',
  'ABORTED',
];

/** Every route of the API. */
export const API_ROUTES: RouteConfig[] = [
  route({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Liveness',
    scope: null,
    ok: { 200: json('The process answers', HealthSchema) },
  }),
  route({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: "The process's Prometheus registry",
    scope: 'read',
    ok: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } } },
  }),
  route({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    scope: null,
    ok: { 200: json('OpenAPI 3.1', z.record(z.string(), z.unknown())) },
  }),
  route({
    method: 'get',
    path: '/v1/docs',
    operationId: 'reference',
    summary: 'A reference page of this document',
    scope: null,
    ok: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
  }),
  route({
    method: 'post',
    path: '/v1/tables',
    operationId: 'createTable',
    summary: 'Create a table',
    scope: 'write',
    request: { body: { required: true, content: { 'application/json': { schema: CreateTableSchema } } } },
    ok: {
      201: json('Created', TableDescriptionSchema, {
        Location: { description: 'The table', schema: { type: 'string' } },
      }),
    },
    codes: [
      'INVALID_REQUEST',
      'INVALID_SCHEMA',
      'INVALID_TABLE_NAME',
      'INVALID_SETTINGS',
      'INVALID_INDEX',
      'TABLE_EXISTS',
      'INDEX_EXISTS',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'STORE_CONFLICT',
    ],
  }),
  route({
    method: 'get',
    path: '/v1/tables',
    operationId: 'listTables',
    summary: `List tables, ${MAX_PAGE} at most a page`,
    scope: 'read',
    request: { query: PageQuerySchema },
    ok: { 200: json('A page of descriptions', TablePageSchema) },
    codes: ['INVALID_REQUEST', 'INVALID_CURSOR'],
  }),
  route({
    method: 'get',
    path: '/v1/tables/{t}',
    operationId: 'describeTable',
    summary: 'Describe a table',
    scope: 'read',
    request: { params: TableParamsSchema },
    ok: { 200: json('The description', TableDescriptionSchema) },
    codes: ['INVALID_TABLE_NAME', 'TABLE_NOT_FOUND'],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/columns',
    operationId: 'addColumns',
    summary:
      'Add nullable columns, widen int32 → int64 or float32 → float64, or make a column nullable; from the answer on, writes that need the change are taken in every process, and older rows read under it',
    scope: 'admin',
    request: {
      params: TableParamsSchema,
      body: { required: true, content: { 'application/json': { schema: SchemaChangeSchema } } },
    },
    ok: {
      200: json(
        'The schema now in force, and the merge-lane job that gives the base the columns',
        ColumnsAddedSchema,
        {
          Location: { description: 'The status of that job', schema: { type: 'string' } },
        },
      ),
    },
    codes: [
      'INVALID_REQUEST',
      'INVALID_TABLE_NAME',
      'INVALID_SCHEMA',
      'INVALID_SCHEMA_CHANGE',
      'TABLE_NOT_FOUND',
      'UNSUPPORTED_MEDIA_TYPE',
      'PAYLOAD_TOO_LARGE',
      'STORE_CONFLICT',
    ],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/indexes',
    operationId: 'declareIndex',
    summary:
      "Declare an index; an optimize in the table's merge lane builds it once the base has rows enough, and every optimize keeps it up to date",
    scope: 'admin',
    request: {
      params: TableParamsSchema,
      body: { required: true, content: { 'application/json': { schema: IndexDeclarationSchema } } },
    },
    ok: {
      202: json('The declaration, and the job that builds it', DeclaredIndexSchema, {
        Location: { description: 'The status of that job', schema: { type: 'string' } },
      }),
    },
    codes: [
      'INVALID_REQUEST',
      'INVALID_TABLE_NAME',
      'INVALID_INDEX',
      'TABLE_NOT_FOUND',
      'INDEX_EXISTS',
      'UNSUPPORTED_MEDIA_TYPE',
      'PAYLOAD_TOO_LARGE',
      'STORE_CONFLICT',
    ],
  }),
  route({
    method: 'delete',
    path: '/v1/tables/{t}',
    operationId: 'dropTable',
    summary: 'Drop a table: 404 at once for reads and writes, data removed after the GC grace',
    scope: 'admin',
    request: { params: TableParamsSchema },
    ok: { 200: json('The drop, and when its data may be deleted', DroppedTableSchema) },
    codes: ['INVALID_TABLE_NAME', 'TABLE_NOT_FOUND', 'STORE_CONFLICT'],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/rows',
    operationId: 'upsertRows',
    summary: 'Upsert rows; 200 once every row is durable',
    scope: 'write',
    request: {
      params: TableParamsSchema,
      headers: IdempotencyHeaderSchema,
      body: {
        required: true,
        content: { 'application/json': { schema: RowsBodySchema }, [ARROW_STREAM]: arrowBody },
      },
    },
    ok: { 200: json('Acked: durable in the WAL', AckSchema, replayed) },
    codes: [...WRITE_CODES, 'INVALID_ROWS'],
  }),
  route({
    method: 'delete',
    path: '/v1/tables/{t}/rows',
    operationId: 'deleteRows',
    summary: 'Delete rows by primary key; same ack rule as an upsert',
    scope: 'write',
    request: {
      params: TableParamsSchema,
      headers: IdempotencyHeaderSchema,
      body: { required: true, content: { 'application/json': { schema: KeysBodySchema } } },
    },
    ok: { 200: json('Acked: durable in the WAL', AckSchema, replayed) },
    codes: [...WRITE_CODES, 'INVALID_KEY', 'TABLE_HAS_NO_KEY'],
  }),
  route({
    method: 'get',
    path: '/v1/tables/{t}/rows',
    operationId: 'readRows',
    summary:
      'Point lookup (`key`) or a scan page (`limit`, `after`, a key range `from`..`to`): pending rows in primary-key order, then the base in its storage order',
    scope: 'read',
    request: { params: TableParamsSchema, query: RowsQuerySchema },
    ok: {
      200: {
        description:
          'A lookup answers `{row}`, a scan `{rows, next}`; with `Accept: application/vnd.apache.arrow.stream` an Arrow stream, the next cursor in `Sluice-Next` (absent on the last page)',
        headers: {
          'Sluice-Next': { description: 'The next scan cursor (Arrow answers)', schema: { type: 'string' } },
        },
        content: {
          'application/json': { schema: z.union([ScanPageSchema, LookupSchema]) },
          [ARROW_STREAM]: arrowBody,
        },
      },
    },
    codes: [
      ...READ_CODES,
      'INVALID_KEY',
      'INVALID_CURSOR',
      'CURSOR_EXPIRED',
      'KEY_NOT_FOUND',
      'TABLE_HAS_NO_KEY',
    ],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/rows/lookup',
    operationId: 'lookupRows',
    summary: 'Look up several keys at once (up to 1000)',
    scope: 'read',
    request: {
      params: TableParamsSchema,
      query: ColumnsQuerySchema,
      body: { required: true, content: { 'application/json': { schema: KeysBodySchema } } },
    },
    ok: {
      200: {
        description:
          'The rows found and the keys missing; with `Accept: application/vnd.apache.arrow.stream` the rows as an Arrow stream whose schema metadata `sluice.missing` holds the missing keys as JSON',
        content: { 'application/json': { schema: LookupManySchema }, [ARROW_STREAM]: arrowBody },
      },
    },
    codes: [
      ...READ_CODES,
      'INVALID_KEY',
      'TABLE_HAS_NO_KEY',
      'PAYLOAD_TOO_LARGE',
      'TOO_MANY_ROWS',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/search',
    operationId: 'search',
    summary:
      'Nearest neighbours of a vector, a full-text search, or the rows a Lance SQL filter passes, over the base and every pending row: the newest value per key, no deleted row',
    scope: 'read',
    request: {
      params: TableParamsSchema,
      body: { required: true, content: { 'application/json': { schema: SearchBodySchema } } },
    },
    ok: {
      200: {
        description:
          'The rows, best first; with `Accept: application/vnd.apache.arrow.stream` an Arrow stream with `_distance` or `_score` as its last column',
        content: { 'application/json': { schema: SearchResultSchema }, [ARROW_STREAM]: arrowBody },
      },
    },
    codes: [
      ...READ_CODES,
      'INVALID_SEARCH',
      'INVALID_FILTER',
      'INDEX_NOT_BUILT',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  }),
  route({
    method: 'get',
    path: '/v1/tables/{t}/rows/count',
    operationId: 'countRows',
    summary: 'The live row count: base and pending rows, deletes applied',
    scope: 'read',
    request: { params: TableParamsSchema },
    ok: { 200: json('The live row count', RowCountSchema) },
    codes: READ_CODES,
  }),
  route({
    method: 'get',
    path: '/v1/tables/{t}/shards/{s}',
    operationId: 'shardStats',
    summary: 'Shard stats, readable whether the shard is poisoned or not',
    scope: 'read',
    request: { params: ShardParamsSchema },
    ok: { 200: json('The stats', ShardStatsSchema) },
    codes: ['INVALID_REQUEST', 'INVALID_TABLE_NAME', 'TABLE_NOT_FOUND', 'SHARD_NOT_FOUND'],
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/shards/{s}/reopen',
    operationId: 'reopenShard',
    summary: 'Clear the poison of a shard and flush again from the manifest',
    scope: 'admin',
    request: { params: ShardParamsSchema },
    ok: { 200: json('The shard stats after the reopen', ShardStatsSchema) },
    codes: [
      'INVALID_REQUEST',
      'INVALID_TABLE_NAME',
      'TABLE_NOT_FOUND',
      'SHARD_NOT_FOUND',
      'SHARD_NOT_POISONED',
      'STORE_CONFLICT',
    ],
  }),
  ...laneJobRoutes('merge', {
    summary: 'Merge now; never gated by a cooldown',
    job: 'The merge job',
    statusSummary: 'The state and progress of a merge job',
  }),
  ...laneJobRoutes('optimize', {
    summary:
      "Optimize the base now (Lance's compaction, index update and version cleanup), after merging what is pending; runs in the table's merge lane and is never gated by a cooldown",
    job: 'The merge-lane job',
    statusSummary: 'The state and result of an optimize job',
  }),
  route({
    method: 'post',
    path: '/v1/tables/{t}/drain',
    operationId: 'drainTable',
    summary: 'Stop (`true`) or resume (`false`) new merges and optimizes of the table',
    scope: 'admin',
    request: {
      params: TableParamsSchema,
      body: { required: true, content: { 'application/json': { schema: DrainBodySchema } } },
    },
    ok: { 200: json('The drain flag', DrainStateSchema) },
    codes: [
      'INVALID_REQUEST',
      'INVALID_TABLE_NAME',
      'TABLE_NOT_FOUND',
      'UNSUPPORTED_MEDIA_TYPE',
      'STORE_CONFLICT',
    ],
  }),
  route({
    method: 'get',
    path: '/v1/dead-letters',
    operationId: 'listDeadLetters',
    summary: `Dead jobs, oldest first, ${MAX_PAGE} at most a page; reading changes nothing`,
    scope: 'admin',
    request: { query: PageQuerySchema },
    ok: { 200: json('A page of dead letters', DeadLetterPageSchema) },
    codes: ['INVALID_REQUEST', 'INVALID_CURSOR'],
  }),
  route({
    method: 'get',
    path: '/v1/dead-letters/{id}',
    operationId: 'getDeadLetter',
    summary: 'One dead job',
    scope: 'admin',
    request: { params: DeadLetterParamsSchema },
    ok: { 200: json('The dead letter', DeadLetterSchema) },
    codes: ['JOB_NOT_FOUND'],
  }),
  route({
    method: 'post',
    path: '/v1/dead-letters/{id}/retry',
    operationId: 'retryDeadLetter',
    summary: 'Requeue a dead job; refused while its shard is poisoned',
    scope: 'admin',
    request: { params: DeadLetterParamsSchema },
    ok: { 202: json('Requeued', DeadLetterRetrySchema) },
    codes: ['JOB_NOT_FOUND', 'SHARD_STILL_POISONED'],
  }),
  route({
    method: 'get',
    path: '/v1/scheduler/cooldowns',
    operationId: 'listCooldowns',
    summary: 'Targets the scheduler skips after repeated failures',
    scope: 'admin',
    request: { query: PageQuerySchema },
    ok: { 200: json('A page of cooldowns', CooldownPageSchema) },
    codes: ['INVALID_REQUEST', 'INVALID_CURSOR'],
  }),
  route({
    method: 'get',
    path: '/v1/scheduler/merge-failures',
    operationId: 'listMergeFailures',
    summary: 'The merge failure ledger, by table name',
    scope: 'admin',
    request: { query: PageQuerySchema },
    ok: { 200: json('A page of failure records', MergeFailurePageSchema) },
    codes: ['INVALID_REQUEST', 'INVALID_CURSOR'],
  }),
];

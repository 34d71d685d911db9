/**
 * The typed client of the Sluice API. Writes are cut into batches, each sent with an
 * Idempotency-Key of its own, so that a batch retried after a lost answer lands once.
 */
import { randomUUID } from 'node:crypto';
import { type RecordBatch, type Table, tableFromIPC } from 'apache-arrow';
import {
  ARROW_STREAM,
  arrowBatches,
  type Batch,
  type BatchLimits,
  DEFAULT_BATCH_LIMITS,
  jsonBatches,
} from './batches.ts';
import { isSluiceApiError, SluiceApiError } from './errors.ts';
import { ackedThrough, isMerged, leftToMerge, type ShardLeft } from './merged-through.ts';
import { Transport, type TransportOptions } from './transport.ts';
import type {
  Ack,
  ColumnsAdded,
  CooldownPage,
  CreateTable,
  DeadLetter,
  DeadLetterPage,
  DeadLetterRetry,
  DeclaredIndex,
  DrainState,
  DroppedTable,
  IndexDeclaration,
  LookupMany,
  MergeFailurePage,
  MergeStatus,
  Row,
  RowCount,
  ScanPage,
  SchemaChange,
  SearchBody,
  SearchResult,
  ShardStats,
  TableDescription,
  TablePage,
} from './types.ts';

export interface WriteOptions {
  /** Batch `i` is sent with `${idempotencyKey}.${i}`; a random key when left out. */
  idempotencyKey?: string;
  batch?: Partial<BatchLimits>;
  signal?: AbortSignal;
  /** Called after each acked batch. */
  onBatch?: (done: BatchDone) => void;
}

export interface BatchDone {
  index: number;
  rows: number;
  bytes: number;
  ack: Ack;
  /** The server answered an earlier ack of this batch: it had landed before. */
  replayed: boolean;
}

export interface WriteResult {
  acked: number;
  batches: number;
  replayed: number;
}

export interface ScanOptions {
  /** Rows per page, 1..1000. */
  pageSize?: number;
  after?: string | null;
  /** Only these columns, in this order. */
  columns?: readonly string[];
  /** The first key of the range (inclusive); an array for a composite key. */
  from?: unknown;
  /** The first key past the range (exclusive). */
  to?: unknown;
  signal?: AbortSignal;
}

/** The query parameters of a scan, less its page. */
function scanQuery(options: ScanOptions): Record<string, string | undefined> {
  return {
    columns: options.columns?.join(','),
    from: options.from === undefined ? undefined : JSON.stringify(options.from),
    to: options.to === undefined ? undefined : JSON.stringify(options.to),
  };
}

export interface MergeRequest {
  jobId: string;
  /** The status path of the merge job. */
  location: string;
}

export interface WaitMergedOptions {
  intervalMs?: number;
  signal?: AbortSignal;
  onUpdate?: (left: ShardLeft[]) => void;
}

export interface FollowOptions {
  intervalMs?: number;
  signal?: AbortSignal;
  onUpdate?: (status: MergeStatus) => void;
}

const FINAL_MERGE_STATES = new Set(['completed', 'failed']);
const table = (name: string) => `/v1/tables/${encodeURIComponent(name)}`;

/** Every item of a paginated listing, page by page, following `next` until the last page. */
async function* everyPage<T>(
  page: (after: string | null) => Promise<{ items: T[]; next: string | null }>,
): AsyncGenerator<T> {
  let after: string | null = null;
  do {
    const current: { items: T[]; next: string | null } = await page(after);
    yield* current.items;
    after = current.next;
  } while (after);
}

export class SluiceClient {
  readonly transport: Transport;

  constructor(options: TransportOptions) {
    this.transport = new Transport(options);
  }

  createTable(definition: CreateTable, signal?: AbortSignal): Promise<TableDescription> {
    return this.transport.json({ method: 'POST', path: '/v1/tables', json: definition, signal });
  }

  describeTable(name: string, signal?: AbortSignal): Promise<TableDescription> {
    return this.transport.json({ method: 'GET', path: table(name), signal });
  }

  listTablesPage(
    options: { after?: string | null; limit?: number; signal?: AbortSignal } = {},
  ): Promise<TablePage> {
    const { after, limit, signal } = options;
    return this.transport.json({ method: 'GET', path: '/v1/tables', query: { after, limit }, signal });
  }

  listTables(signal?: AbortSignal): AsyncGenerator<TableDescription> {
    return everyPage((after) => this.listTablesPage({ after, signal }));
  }

  dropTable(name: string, signal?: AbortSignal): Promise<DroppedTable> {
    return this.transport.json({ method: 'DELETE', path: table(name), signal });
  }

  /** Upserts JSON rows or an Arrow table, batch by batch, in order. */
  write(tableName: string, rows: readonly Row[] | Table, options: WriteOptions = {}): Promise<WriteResult> {
    const limits = { ...DEFAULT_BATCH_LIMITS, ...options.batch };
    const batches = Array.isArray(rows) ? jsonBatches(rows, limits) : arrowBatches(rows as Table, limits);
    return this.sendBatches(tableName, batches, options);
  }

  /** Sends one prepared batch with its own key: for callers that keep their own batch positions. */
  async writeBatch(
    tableName: string,
    batch: Batch,
    idempotencyKey: string,
    signal?: AbortSignal,
    method: 'POST' | 'DELETE' = 'POST',
  ): Promise<{ ack: Ack; replayed: boolean }> {
    const response = await this.transport.send({
      method,
      path: `${table(tableName)}/rows`,
      body: batch.body,
      contentType: batch.contentType,
      idempotencyKey,
      signal,
    });
    const ack = (await response.json()) as Ack;
    return { ack, replayed: response.headers.get('idempotent-replayed') === 'true' };
  }

  /** Deletes rows by primary key (an array for a composite key), batch by batch. */
  deleteRows(tableName: string, keys: readonly unknown[], options: WriteOptions = {}): Promise<WriteResult> {
    const limit = options.batch?.maxRows ?? DEFAULT_BATCH_LIMITS.maxRows;
    const encoder = new TextEncoder();
    const batches = function* (): Generator<Batch> {
      for (let at = 0; at < keys.length; at += limit) {
        const slice = keys.slice(at, at + limit);
        const body = encoder.encode(JSON.stringify({ keys: slice }));
        yield { rows: slice.length, body, contentType: 'application/json' };
      }
    };
    return this.sendBatches(tableName, batches(), options, 'DELETE');
  }

  /** The row with this primary key (an array for a composite key), or null. */
  async lookup(
    tableName: string,
    key: unknown,
    options: { columns?: readonly string[]; signal?: AbortSignal } = {},
  ): Promise<Row | null> {
    try {
      const { row } = await this.transport.json<{ row: Row }>({
        method: 'GET',
        path: `${table(tableName)}/rows`,
        query: { key: JSON.stringify(key), columns: options.columns?.join(',') },
        signal: options.signal,
      });
      return row;
    } catch (err) {
      if (isSluiceApiError(err, 'KEY_NOT_FOUND')) return null;
      throw err;
    }
  }

  /** The rows of several keys (up to 1000), in the order asked, and the keys with no row. */
  lookupMany(
    tableName: string,
    keys: readonly unknown[],
    options: { columns?: readonly string[]; signal?: AbortSignal } = {},
  ): Promise<LookupMany> {
    return this.transport.json({
      method: 'POST',
      path: `${table(tableName)}/rows/lookup`,
      query: { columns: options.columns?.join(',') },
      json: { keys },
      signal: options.signal,
    });
  }

  /**
   * The k nearest neighbours of `vector`, a full-text search of `text`, or the rows `filter`
   * passes, over the base and every row not merged yet: best first, each with `_distance`
   * or `_score`.
   */
  search(tableName: string, body: SearchBody, signal?: AbortSignal): Promise<SearchResult> {
    return this.transport.json({ method: 'POST', path: `${table(tableName)}/search`, json: body, signal });
  }

  /** The live row count: base and pending rows, deletes applied. */
  countRows(tableName: string, signal?: AbortSignal): Promise<RowCount> {
    return this.transport.json({ method: 'GET', path: `${table(tableName)}/rows/count`, signal });
  }

  scanPage(tableName: string, options: ScanOptions = {}): Promise<ScanPage> {
    const { pageSize, after, signal } = options;
    return this.transport.json({
      method: 'GET',
      path: `${table(tableName)}/rows`,
      query: { limit: pageSize, after, ...scanQuery(options) },
      signal,
    });
  }

  /** Every row (of the range), the newest value of each key: pending rows in key order, then the base in its storage order. */
  async *scan(tableName: string, options: ScanOptions = {}): AsyncGenerator<Row> {
    let after = options.after ?? null;
    do {
      const page = await this.scanPage(tableName, { ...options, after });
      yield* page.rows;
      after = page.next;
    } while (after);
  }

  /** The scan as Arrow record batches, one or more a page. */
  async *scanBatches(tableName: string, options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    let after = options.after ?? null;
    do {
      const response = await this.transport.send({
        method: 'GET',
        path: `${table(tableName)}/rows`,
        query: { limit: options.pageSize, after, ...scanQuery(options) },
        accept: ARROW_STREAM,
        signal: options.signal,
      });
      after = response.headers.get('sluice-next');
      yield* tableFromIPC(new Uint8Array(await response.arrayBuffer())).batches;
    } while (after);
  }

  shardStats(tableName: string, shard: number, signal?: AbortSignal): Promise<ShardStats> {
    return this.transport.json({ method: 'GET', path: `${table(tableName)}/shards/${shard}`, signal });
  }

  /** The stats of every shard of the table. */
  async tableShards(tableName: string, signal?: AbortSignal): Promise<ShardStats[]> {
    const { shards } = await this.describeTable(tableName, signal);
    return Promise.all(
      Array.from({ length: shards }, (_, shard) => this.shardStats(tableName, shard, signal)),
    );
  }

  reopenShard(tableName: string, shard: number, signal?: AbortSignal): Promise<ShardStats> {
    return this.transport.json({
      method: 'POST',
      path: `${table(tableName)}/shards/${shard}/reopen`,
      signal,
    });
  }

  deadLettersPage(
    options: { after?: string | null; limit?: number; signal?: AbortSignal } = {},
  ): Promise<DeadLetterPage> {
    const { after, limit, signal } = options;
    return this.transport.json({ method: 'GET', path: '/v1/dead-letters', query: { after, limit }, signal });
  }

  deadLetters(signal?: AbortSignal): AsyncGenerator<DeadLetter> {
    return everyPage((after) => this.deadLettersPage({ after, signal }));
  }

  deadLetter(id: string, signal?: AbortSignal): Promise<DeadLetter> {
    return this.transport.json({ method: 'GET', path: `/v1/dead-letters/${encodeURIComponent(id)}`, signal });
  }

  retryDeadLetter(id: string, signal?: AbortSignal): Promise<DeadLetterRetry> {
    return this.transport.json({
      method: 'POST',
      path: `/v1/dead-letters/${encodeURIComponent(id)}/retry`,
      signal,
    });
  }

  /** Merge now: a job in the table's merge lane. */
  merge(tableName: string, signal?: AbortSignal): Promise<MergeRequest> {
    return this.requestWork('merge', tableName, signal);
  }

  /** Optimize now (compaction, index update, cleanup), after merging what is pending: a job in the table's merge lane. */
  optimize(tableName: string, signal?: AbortSignal): Promise<MergeRequest> {
    return this.requestWork('optimize', tableName, signal);
  }

  mergeStatus(tableName: string, jobId: string, signal?: AbortSignal): Promise<MergeStatus> {
    return this.workStatus('merge', tableName, jobId, signal);
  }

  optimizeStatus(tableName: string, jobId: string, signal?: AbortSignal): Promise<MergeStatus> {
    return this.workStatus('optimize', tableName, jobId, signal);
  }

  /** Polls the merge job until it completes or fails; answers its last status. */
  followMerge(tableName: string, jobId: string, options: FollowOptions = {}): Promise<MergeStatus> {
    return this.followWork('merge', tableName, jobId, options);
  }

  /** Polls the optimize job until it completes or fails; answers its last status. */
  followOptimize(tableName: string, jobId: string, options: FollowOptions = {}): Promise<MergeStatus> {
    return this.followWork('optimize', tableName, jobId, options);
  }

  /**
   * Waits until every write acked on the table before this call is in the base; `onUpdate`
   * hears what is left each time it looks. Fails with SHARD_POISONED when a shard that still
   * holds some of them is poisoned, since nothing of it merges until an operator reopens it.
   */
  async waitMerged(tableName: string, options: WaitMergedOptions = {}): Promise<void> {
    const interval = options.intervalMs ?? 500;
    // The shard count is fixed for the table's life: described once, then only shard stats are read.
    const { shards: count } = await this.describeTable(tableName, options.signal);
    const everyShard = () =>
      Promise.all(
        Array.from({ length: count }, (_, shard) => this.shardStats(tableName, shard, options.signal)),
      );
    const through = (await everyShard()).map(ackedThrough);
    for (;;) {
      const shards = await everyShard();
      const left = shards.map((stats, shard) => leftToMerge(stats, through[shard] ?? 0));
      options.onUpdate?.(left);
      if (left.every(isMerged)) return;
      const poisoned = shards.find((stats, shard) => stats.poison && !isMerged(left[shard]!));
      if (poisoned) {
        throw new SluiceApiError(
          'SHARD_POISONED',
          `shard ${poisoned.shard} of ${tableName} is poisoned; its writes merge once an operator reopens it`,
          503,
          { table: tableName, shard: poisoned.shard },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  private async requestWork(work: 'merge' | 'optimize', tableName: string, signal?: AbortSignal) {
    const response = await this.transport.send({
      method: 'POST',
      path: `${table(tableName)}/${work}`,
      signal,
    });
    const { jobId } = (await response.json()) as { jobId: string };
    const location =
      response.headers.get('location') ?? `${table(tableName)}/${work}/${encodeURIComponent(jobId)}`;
    return { jobId, location };
  }

  private workStatus(work: 'merge' | 'optimize', tableName: string, jobId: string, signal?: AbortSignal) {
    return this.transport.json<MergeStatus>({
      method: 'GET',
      path: `${table(tableName)}/${work}/${encodeURIComponent(jobId)}`,
      signal,
    });
  }

  private async followWork(
    work: 'merge' | 'optimize',
    tableName: string,
    jobId: string,
    options: FollowOptions,
  ): Promise<MergeStatus> {
    const interval = options.intervalMs ?? 500;
    for (;;) {
      const status = await this.workStatus(work, tableName, jobId, options.signal);
      options.onUpdate?.(status);
      if (FINAL_MERGE_STATES.has(status.state)) return status;
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  /**
   * Adds nullable columns: writes naming them are taken from the answer on, in every
   * process; rows written before read them as null.
   */
  addColumns(tableName: string, change: SchemaChange, signal?: AbortSignal): Promise<ColumnsAdded> {
    return this.transport.json({ method: 'POST', path: `${table(tableName)}/columns`, json: change, signal });
  }

  /** Declares an index that the table's merge lane builds on the base and keeps up to date. */
  declareIndex(tableName: string, index: IndexDeclaration, signal?: AbortSignal): Promise<DeclaredIndex> {
    return this.transport.json({ method: 'POST', path: `${table(tableName)}/indexes`, json: index, signal });
  }

  setDrain(tableName: string, drain: boolean, signal?: AbortSignal): Promise<DrainState> {
    return this.transport.json({
      method: 'POST',
      path: `${table(tableName)}/drain`,
      json: { drain },
      signal,
    });
  }

  cooldowns(options: { after?: string | null; limit?: number } = {}): Promise<CooldownPage> {
    return this.transport.json({ method: 'GET', path: '/v1/scheduler/cooldowns', query: options });
  }

  mergeFailures(options: { after?: string | null; limit?: number } = {}): Promise<MergeFailurePage> {
    return this.transport.json({ method: 'GET', path: '/v1/scheduler/merge-failures', query: options });
  }

  private async sendBatches(
    tableName: string,
    batches: Iterable<Batch>,
    options: WriteOptions,
    method: 'POST' | 'DELETE' = 'POST',
  ): Promise<WriteResult> {
    const base = options.idempotencyKey ?? randomUUID();
    const result = { acked: 0, batches: 0, replayed: 0 };
    for (const batch of batches) {
      const index = result.batches;
      const { ack, replayed } = await this.writeBatch(
        tableName,
        batch,
        `${base}.${index}`,
        options.signal,
        method,
      );
      result.acked += ack.acked;
      result.batches++;
      if (replayed) result.replayed++;
      options.onBatch?.({ index, rows: batch.rows, bytes: batch.body.byteLength, ack, replayed });
    }
    return result;
  }
}

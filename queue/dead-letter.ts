/**
 * The dead-letter queue: where a job goes when no retry can make it succeed. BullMQ has
 * none built in; this queue has no worker, so its jobs stay waiting until an operator
 * lists, inspects or retries them. A dead letter reuses the failed job's queue and id, so
 * recording the same failure twice (a redelivered job) keeps one entry.
 *
 * I17: listing and reading letters only reads (LRANGE of ids, HGETALL of a job): no job,
 * count, attempt or backoff changes. Pages run oldest first.
 */
import type { Job, Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import { deadLetterCount } from '../shared/metrics.ts';
import { pageLimit } from '../shared/page-limit.ts';
import { isPlainObject } from '../shared/plain-object.ts';
import type { Shards } from '../shared/services/shards.ts';
import {
  type DeadLetterCursor,
  decodeDeadLetterCursor,
  encodeDeadLetterCursor,
  isDeadLetterIdShape,
} from './dead-letter-cursor.ts';
import { openQueue } from './open-queue.ts';
import { QUEUE, type ShardJobData } from './queues.ts';

export interface DeadLetter {
  queue: string;
  target: string;
  jobId: string;
  jobName: string;
  data: unknown;
  error: { code: string; message: string; details: Record<string, unknown> };
  stack: string | null;
  attempts: number;
  enqueuedAt: string;
  lastStartedAt: string | null;
  failedAt: string;
}

export function deadLetterId(queue: string, jobId: string): string {
  return `${queue}-${jobId}`;
}

export interface DeadLetterItem extends DeadLetter {
  id: string;
}

export interface DeadLetterPage {
  items: DeadLetterItem[];
  next: string | null;
}

const JOB_NAME = 'dead-letter';

export class DeadLetterQueue {
  readonly queue: Queue<DeadLetter>;
  /** The flush queue, where a retried letter's original failed job is removed; opened on the first retry. */
  private flushQueue: Queue<ShardJobData> | null = null;

  constructor(private readonly config: Config) {
    this.queue = openQueue<DeadLetter>(config, QUEUE.deadLetter);
  }

  async record(job: Job, target: string, error: SluiceError): Promise<DeadLetter> {
    const letter: DeadLetter = {
      queue: job.queueName,
      target,
      jobId: String(job.id),
      jobName: job.name,
      data: job.data,
      error: error.toJSON(),
      stack: error.stack ?? null,
      attempts: job.attemptsMade + 1,
      enqueuedAt: new Date(job.timestamp).toISOString(),
      lastStartedAt: job.processedOn ? new Date(job.processedOn).toISOString() : null,
      failedAt: new Date().toISOString(),
    };
    const id = deadLetterId(letter.queue, letter.jobId);
    // A redelivered job records its letter again; the metric counts dead jobs, not recordings.
    const known = (await this.queue.getJob(id)) !== undefined;
    await this.queue.add(JOB_NAME, letter, { jobId: id });
    if (!known) deadLetterCount.inc({ queue: letter.queue });
    return letter;
  }

  async page(options: { after?: string | null; limit?: number } = {}): Promise<DeadLetterPage> {
    const limit = pageLimit(options.limit);
    const cursor = options.after ? decodeDeadLetterCursor(options.after) : null;
    const { start, ids } = await this.window(cursor, limit);
    const shown = ids.slice(0, limit);
    // A letter retried between reading its id and its job is simply not shown.
    const found = await Promise.all(shown.map((id) => this.find(id)));
    const lastAt = found.findLastIndex((letter) => letter !== null);
    const last = found[lastAt];
    const next: DeadLetterCursor = last
      ? { at: start + lastAt + 1, id: last.id, failedAt: Date.parse(last.failedAt) }
      : { at: start + shown.length, id: shown.at(-1)!, failedAt: cursor?.failedAt ?? 0 };
    return {
      items: found.filter((letter): letter is DeadLetterItem => letter !== null),
      next: ids.length > limit ? encodeDeadLetterCursor(next) : null,
    };
  }

  async get(id: string): Promise<DeadLetterItem> {
    const letter = await this.find(id);
    if (!letter)
      throw new SluiceError('JOB_NOT_FOUND', `no dead letter "${id.slice(0, 200)}"`, {
        id: id.slice(0, 200),
      });
    return letter;
  }

  /**
   * Asks again for the flush of the letter's shard, then removes the letter; the shards
   * refuse while the shard is still poisoned (lsm/flush-retry.ts).
   */
  async retry(id: string, shards: Pick<Shards, 'retryFailedFlush'>): Promise<DeadLetterItem> {
    const letter = await this.get(id);
    const { table, shard } = shardOf(letter);
    await shards.retryFailedFlush(table, shard, id);
    await this.forgetOriginal(letter.jobId);
    await this.queue.remove(id);
    return letter;
  }

  async close(): Promise<void> {
    await Promise.all([this.queue.close(), this.flushQueue?.close()]);
  }

  /**
   * The failed flush job a letter was made from stays in the flush queue's failed set, where
   * the dashboard and `sluice_queue_jobs{state="failed"}` would go on counting a failure that
   * the retry has taken over; the letter holds everything it said.
   */
  private async forgetOriginal(jobId: string): Promise<void> {
    this.flushQueue ??= openQueue<ShardJobData>(this.config, QUEUE.flush);
    const original = await this.flushQueue.getJob(jobId);
    if (original && (await original.getState()) === 'failed') await original.remove();
  }

  private async find(id: string): Promise<DeadLetterItem | null> {
    if (!isDeadLetterIdShape(id)) return null;
    const job = await this.queue.getJob(id);
    // Only a dead letter counts, not whatever else a job id could name.
    if (!job || job.name !== JOB_NAME || job.id !== id) return null;
    return { id, ...(job.data as DeadLetter) };
  }

  /** Up to `limit + 1` ids from where the page starts; the extra one tells whether more follow. */
  private async window(
    cursor: DeadLetterCursor | null,
    limit: number,
  ): Promise<{ start: number; ids: string[] }> {
    if (cursor === null) return { start: 0, ids: await this.ids(0, limit + 1) };
    const ahead = await this.ids(cursor.at - 1, limit + 2);
    if (ahead[0] === cursor.id) return { start: cursor.at, ids: ahead.slice(1) };
    const start = await this.resumeAt(cursor);
    return { start, ids: await this.ids(start, limit + 1) };
  }

  /**
   * Where the page after `cursor` starts once letters at or before it were retried: right
   * after its letter if that is still there, else at the first letter that failed no
   * earlier than it. Letters are appended as they fail, so failure times rise along the
   * list; of letters failing in the same millisecond one may be shown twice, none skipped.
   */
  private async resumeAt(cursor: DeadLetterCursor): Promise<number> {
    const before = await this.ids(0, cursor.at);
    const index = before.lastIndexOf(cursor.id);
    if (index !== -1) return index + 1;
    let low = 0;
    let high = before.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const letter = await this.find(before[mid]!);
      if (letter && Date.parse(letter.failedAt) < cursor.failedAt) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** `count` waiting ids from position `start`, oldest first. */
  private ids(start: number, count: number): Promise<string[]> {
    return this.queue.getRanges(['waiting'], start, start + count - 1, true);
  }
}

function shardOf(letter: DeadLetterItem): ShardJobData {
  const { data } = letter;
  if (
    letter.queue !== QUEUE.flush ||
    !isPlainObject(data) ||
    typeof data.table !== 'string' ||
    typeof data.shard !== 'number'
  ) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `dead letter "${letter.id}" is not a flush of a shard; it cannot be retried`,
      {
        id: letter.id,
        queue: letter.queue,
      },
    );
  }
  return { table: data.table, shard: data.shard };
}

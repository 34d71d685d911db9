/**
 * The domain's WorkScheduler on BullMQ: each request is an add with a deduplication id,
 * so asking for work that is already queued costs one Redis round trip and adds nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { isWorkProgress } from '../shared/work/work-progress.ts';
import type { FlushRetry, SealRequest, WorkScheduler } from '../shared/work/work-scheduler.ts';
import type { WorkState, WorkStatus } from '../shared/work/work-status.ts';
import { openQueue } from './open-queue.ts';
import {
  flushJobOptions,
  mergeLaneId,
  QUEUE,
  type ShardJobData,
  sealJobOptions,
  type TableJobData,
  tableWorkJobOptions,
} from './queues.ts';

export class BullmqWorkScheduler implements WorkScheduler {
  readonly seal: Queue<ShardJobData>;
  readonly flush: Queue<ShardJobData>;
  readonly merge: Queue<TableJobData>;

  constructor(private readonly config: Config) {
    this.seal = openQueue<ShardJobData>(config, QUEUE.seal);
    this.flush = openQueue<ShardJobData>(config, QUEUE.flush);
    this.merge = openQueue<TableJobData>(config, QUEUE.merge);
  }

  async requestSeal(table: string, shard: number, request: SealRequest): Promise<void> {
    const data = { table, shard };
    await this.seal.add('seal', data, sealJobOptions(data, request.delayMs));
  }

  async requestFlush(table: string, shard: number, retry?: FlushRetry): Promise<void> {
    const data = { table, shard };
    await this.flush.add('flush', data, flushJobOptions(data, this.config, retry));
  }

  /**
   * The id of the job that will do the work: a new job, the one already waiting for it, or
   * — when one is running — the follow-up BullMQ starts under this request's id once it ends.
   */
  async requestMerge(table: string, options: { manual: boolean }): Promise<string> {
    const data = { table, manual: options.manual };
    const jobId = randomUUID();
    const job = await this.merge.add(QUEUE.merge, data, tableWorkJobOptions(data, jobId));
    const existing = String(job.id);
    if (existing === jobId) return jobId;
    const folded =
      (await this.merge.getJobState(existing)) === 'active' || (await this.merge.getJob(jobId)) !== undefined;
    return folded ? jobId : existing;
  }

  async workStatus(table: string, id: string): Promise<WorkStatus | null> {
    const job = await this.merge.getJob(id);
    if (job) return job.data.table === table ? await statusOf(this.merge, job, table) : null;
    return (await this.queuedBehindActive(table)) === id ? queuedStatus(id, table) : null;
  }

  async close(): Promise<void> {
    await Promise.all([this.seal.close(), this.flush.close(), this.merge.close()]);
  }

  /**
   * The id of the follow-up stored while the table's job runs (`keepLastIfActive`): BullMQ
   * keeps it as a proto-job under `dn:<deduplication id>` until the running one ends.
   */
  private async queuedBehindActive(table: string) {
    const client = await this.merge.backend.client;
    return client.hget(this.merge.toKey(`dn:${mergeLaneId(table)}`), 'jid');
  }
}

const STATES: Readonly<Record<string, WorkState>> = {
  waiting: 'waiting',
  prioritized: 'waiting',
  'waiting-children': 'waiting',
  delayed: 'delayed',
  active: 'active',
  completed: 'completed',
  failed: 'failed',
};

async function statusOf(
  queue: Queue<TableJobData>,
  read: Job<TableJobData>,
  table: string,
): Promise<WorkStatus | null> {
  const state = STATES[await read.getState()];
  if (!state) return null;
  // A job that ended between its read and its state's is read again, so that its result and
  // times are those of the state it is in.
  const ended = state === 'completed' || state === 'failed';
  const job = ended && !read.finishedOn ? ((await queue.getJob(String(read.id))) ?? read) : read;
  return {
    id: String(job.id),
    table,
    state,
    progress: isWorkProgress(job.progress) ? job.progress : null,
    result: job.returnvalue ?? null,
    failedReason: job.failedReason ?? null,
    createdAt: new Date(job.timestamp).toISOString(),
    finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
  };
}

function queuedStatus(id: string, table: string): WorkStatus {
  return {
    id,
    table,
    state: 'waiting',
    progress: null,
    result: null,
    failedReason: null,
    createdAt: null,
    finishedAt: null,
  };
}

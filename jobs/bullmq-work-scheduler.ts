/**
 * The domain's WorkScheduler on BullMQ: each request is an add with a deduplication id,
 * so asking for work that is already queued costs one Redis round trip and adds nothing.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import type { WorkKind } from '../shared/scheduler/contracts.ts';
import type { FlushRetry, SealRequest, WorkScheduler } from '../shared/work/work-scheduler.ts';
import {
  flushJobOptions,
  QUEUE,
  queueOptions,
  type ShardJobData,
  sealJobOptions,
  type TableJobData,
  tableWorkJobOptions,
} from './queues.ts';

export class BullmqWorkScheduler implements WorkScheduler {
  readonly seal: Queue<ShardJobData>;
  readonly flush: Queue<ShardJobData>;
  readonly merge: Queue<TableJobData>;
  readonly compact: Queue<TableJobData>;

  constructor(private readonly config: Config) {
    this.seal = new Queue<ShardJobData>(QUEUE.seal, queueOptions(config, QUEUE.seal));
    this.flush = new Queue<ShardJobData>(QUEUE.flush, queueOptions(config, QUEUE.flush));
    this.merge = new Queue<TableJobData>(QUEUE.merge, queueOptions(config, QUEUE.merge));
    this.compact = new Queue<TableJobData>(QUEUE.compact, queueOptions(config, QUEUE.compact));
  }

  async requestSeal(table: string, shard: number, request: SealRequest): Promise<void> {
    const data = { table, shard };
    await this.seal.add('seal', data, sealJobOptions(data, request.delayMs));
  }

  async requestFlush(table: string, shard: number, retry?: FlushRetry): Promise<void> {
    const data = { table, shard };
    await this.flush.add('flush', data, flushJobOptions(data, this.config, retry));
  }

  requestMerge(table: string, options: { manual: boolean }): Promise<string> {
    return this.requestTableWork(this.merge, QUEUE.merge, { table, manual: options.manual });
  }

  requestCompact(table: string): Promise<string> {
    return this.requestTableWork(this.compact, QUEUE.compact, { table, manual: false });
  }

  async close(): Promise<void> {
    await Promise.all([this.seal.close(), this.flush.close(), this.merge.close(), this.compact.close()]);
  }

  /**
   * The id of the job that will do the work: a new job, the one already waiting for it, or
   * — when one is running — the follow-up BullMQ starts under this request's id once it ends.
   */
  private async requestTableWork(
    queue: Queue<TableJobData>,
    kind: WorkKind,
    data: TableJobData,
  ): Promise<string> {
    const jobId = randomUUID();
    const job = await queue.add(kind, data, tableWorkJobOptions(kind, data, jobId));
    const existing = String(job.id);
    if (existing === jobId) return jobId;
    const folded =
      (await queue.getJobState(existing)) === 'active' || (await queue.getJob(jobId)) !== undefined;
    return folded ? jobId : existing;
  }
}

/**
 * The domain's WorkScheduler on BullMQ: each request is an add with a deduplication id,
 * so asking for work that is already queued costs one Redis round trip and adds nothing.
 */
import { Queue } from 'bullmq';
import type { Config } from '../shared/config.ts';
import type { SealRequest, WorkScheduler } from '../shared/work/work-scheduler.ts';
import { flushJobOptions, QUEUE, queueConnection, type ShardJobData, sealJobOptions } from './queues.ts';

export class BullmqWorkScheduler implements WorkScheduler {
  readonly seal: Queue<ShardJobData>;
  readonly flush: Queue<ShardJobData>;

  constructor(private readonly config: Config) {
    const options = { connection: queueConnection(config), prefix: config.redisPrefix };
    this.seal = new Queue<ShardJobData>(QUEUE.seal, options);
    this.flush = new Queue<ShardJobData>(QUEUE.flush, options);
  }

  async requestSeal(table: string, shard: number, request: SealRequest): Promise<void> {
    const data = { table, shard };
    await this.seal.add('seal', data, sealJobOptions(data, request.delayMs));
  }

  async requestFlush(table: string, shard: number): Promise<void> {
    const data = { table, shard };
    await this.flush.add('flush', data, flushJobOptions(data, this.config));
  }

  async close(): Promise<void> {
    await Promise.all([this.seal.close(), this.flush.close()]);
  }
}

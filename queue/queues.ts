/**
 * Queue names, where each queue's keys live, and the options every job of a queue is
 * added with.
 */
import type { JobsOptions, Queue, QueueBaseOptions } from 'bullmq';
import type { Config } from '../shared/config.ts';
import type { FlushRetry } from '../shared/work/work-scheduler.ts';
import { queueConnection } from './queue-connection.ts';
import { attemptsFor, BACKOFF_TYPE } from './retry-policy.ts';

export const QUEUE = {
  seal: 'seal',
  flush: 'flush',
  merge: 'merge',
  sampler: 'sampler',
  deadLetter: 'dead-letter',
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export const WORKER_QUEUES = [QUEUE.seal, QUEUE.flush, QUEUE.merge, QUEUE.sampler] as const;
export type WorkerQueue = (typeof WORKER_QUEUES)[number];

/** The data of every seal and flush job: its target shard. */
export interface ShardJobData {
  table: string;
  shard: number;
}

export function shardTarget(data: ShardJobData): string {
  return `${data.table}/${data.shard}`;
}

/** The data of every merge-lane job (a merge, then an optimize when due): its target table. */
export interface TableJobData {
  table: string;
  /** Asked for by an operator (POST /v1/tables/{t}/merge or /optimize) rather than by the scheduler. */
  manual: boolean;
}

export interface QueueJobCount {
  queue: string;
  state: string;
  count: number;
}

/** BullMQ's count of every job state of every queue: the /metrics gauges show them, the EMF lines sum them. */
export async function queueJobCounts(queues: Queue[]): Promise<QueueJobCount[]> {
  const perQueue = await Promise.all(
    queues.map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts() })),
  );
  return perQueue.flatMap(({ queue, counts }) =>
    Object.entries(counts).map(([state, count]) => ({ queue, state, count })),
  );
}

/**
 * BullMQ's key prefix for one queue: Sluice's prefix, then the queue's name as a Redis
 * Cluster hash tag (`sluice:{flush}:flush:wait`). BullMQ's Lua scripts touch several keys
 * of a queue at once, which a cluster allows only within one slot.
 */
export function queuePrefix(config: Pick<Config, 'redisPrefix'>, queue: QueueName): string {
  return `${config.redisPrefix}:{${queue}}`;
}

/** What every Queue and Worker of `queue` is constructed with. */
export function queueOptions(
  config: Config,
  queue: QueueName,
  connection: QueueBaseOptions['connection'] = queueConnection(config),
): { connection: QueueBaseOptions['connection']; prefix: string } {
  return { connection, prefix: queuePrefix(config, queue) };
}

const KEEP_FINISHED = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } };

/**
 * Seal: one job per shard, debounced from the first unsealed write: later requests fold
 * into the waiting job without moving it, so a steady trickle of writes is still sealed
 * every `sealDelayMs`. Only an urgent request (delay 0) reschedules the waiting job, to now.
 * `keepLastIfActive` queues one follow-up when a write arrives while the seal runs, so a
 * write never waits for the next write to be sealed.
 */
export function sealJobOptions(data: ShardJobData, delayMs: number): JobsOptions {
  return {
    ...KEEP_FINISHED,
    delay: delayMs,
    attempts: 5,
    backoff: { type: 'exponential', delay: 200 },
    deduplication: { id: `seal/${shardTarget(data)}`, keepLastIfActive: true, reschedule: delayMs === 0 },
  };
}

/**
 * Flush: I5 and I12 by construction — at most one flush job per shard exists. While it runs,
 * retries or waits in backoff (BullMQ's *delayed*), every other add for the shard is folded
 * into it, or (while it is active) into a single follow-up that starts after it finishes.
 * The job flushes the shard's sealed generations lowest first, so no later generation can
 * start while an earlier one is failing. The manifest's compare-and-swap still refuses any
 * out-of-order commit should a redelivered zombie run beside it (I3, I11).
 * A `retry` job continues a generation's budget (I6): it waits out the backoff and has the
 * tries already spent on that generation taken off its attempts.
 */
export function flushJobOptions(data: ShardJobData, config: Config, retry?: FlushRetry): JobsOptions {
  return {
    ...KEEP_FINISHED,
    delay: retry?.delayMs ?? 0,
    attempts: attemptsFor(config.flush) - (retry?.triesSpent ?? 0),
    backoff: { type: BACKOFF_TYPE },
    deduplication: { id: `flush/${shardTarget(data)}`, keepLastIfActive: true },
  };
}

/** The first retry of a failed merge-lane job waits this long, the second twice as long. */
export const TABLE_WORK_BACKOFF_MS = 2000;

/** The deduplication id of a table's merge lane: merges and optimizes of one table share it. */
export function mergeLaneId(table: string): string {
  return `merge/${table}`;
}

/**
 * The merge lane: at most one job per table exists (I12), folded like flush, so a merge and an
 * optimize of one table never run at once. BullMQ retries only twice (2 s, then 4 s: Lance's
 * retryable class): the failure ledger is the durable budget (I15), and the scheduler asks
 * again once a cooldown ends. A manual request replaces a job that is waiting out its
 * backoff, so "merge now" means now.
 */
export function tableWorkJobOptions(data: TableJobData, jobId: string): JobsOptions {
  return {
    ...KEEP_FINISHED,
    jobId,
    attempts: 3,
    backoff: { type: 'exponential', delay: TABLE_WORK_BACKOFF_MS },
    deduplication: { id: mergeLaneId(data.table), keepLastIfActive: true, replace: data.manual },
  };
}

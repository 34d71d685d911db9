/**
 * Seal job → `sealShard`. A seal that fails is only retried: every entry it would have
 * sealed stays in the WAL, and the next write or the reconcile sweep asks for it again.
 */
import type { Job } from 'bullmq';
import type { ShardJobData } from '../queue/queues.ts';
import { toSluiceError } from '../shared/errors.ts';
import type { Sluice } from '../shared/sluice.ts';
import { jobOutcome } from './job-failure.ts';

export function sealProcessor(sluice: Sluice) {
  return async (job: Job<ShardJobData>) => {
    const { table, shard } = job.data;
    const log = sluice.log.child({ queue: job.queueName, jobId: job.id, table, shard });
    try {
      const outcome = await sluice.shards.seal(table, shard);
      if (outcome.sealed.length > 0 || outcome.holes.length > 0) {
        log.debug({ generations: outcome.sealed.map((g) => g.generation), holes: outcome.holes }, 'sealed');
      }
      return { generations: outcome.sealed.map((g) => g.generation), holes: outcome.holes };
    } catch (err) {
      const error = toSluiceError(err);
      if (error.code === 'TABLE_NOT_FOUND') {
        log.info('table dropped; nothing to seal');
        return { generations: [], holes: [], dropped: true };
      }
      log.warn({ err: error, attempt: job.attemptsMade + 1 }, 'seal failed');
      throw jobOutcome(job, error);
    }
  };
}

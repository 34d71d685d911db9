import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../infra/local/redis.ts';
import { QUEUE, queueOptions } from '../../queue/queues.ts';
import { SAMPLER_SCHEDULER_ID } from '../../queue/sampler-schedule.ts';
import { samplerSchedulerLost } from '../../shared/metrics.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { waitFor } from '../support/wait-for.ts';

async function lostCount(): Promise<number> {
  return (await samplerSchedulerLost.get()).values[0]?.value ?? 0;
}

describe('sampler (defect 1: lost Job Scheduler)', () => {
  let h: Harness;
  let redis: PrivateRedis;
  let queue: Queue;

  afterEach(async () => {
    await queue.close();
    await h.close();
    await redis.stop();
  });

  it('re-creates the scheduler after Redis restarts empty, and counts the loss', async () => {
    redis = await startPrivateRedis();
    h = await createHarness({ redisUrl: redis.url, scheduler: { samplerIntervalSeconds: 1 } });
    queue = new Queue(QUEUE.sampler, queueOptions(h.config, QUEUE.sampler));
    h.startWorkers(['sampler']);
    await waitFor(() => queue.getJobScheduler(SAMPLER_SCHEDULER_ID), { message: 'the scheduler upserted' });
    const lostBefore = await lostCount();
    const client = await queue.getBackend().client;
    await client.set('restart-marker', '1');

    await redis.restart();
    // The workers may re-create the scheduler before this line runs; the marker shows that
    // Redis came back empty all the same.
    expect(await client.get('restart-marker')).toBeNull();

    const back = await waitFor(() => queue.getJobScheduler(SAMPLER_SCHEDULER_ID), {
      message: 'the scheduler re-created after the restart',
      timeoutMs: 15_000,
    });
    expect(back.every).toBe(1000);
    expect(await lostCount()).toBeGreaterThan(lostBefore);
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed ?? 0) > 0, {
      message: 'a tick ran after the restart',
      timeoutMs: 15_000,
    });
  });
});

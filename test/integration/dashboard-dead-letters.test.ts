/**
 * The dashboard's own JSON API (what its pages render), without a browser: dead letters
 * are failed jobs with their error and stack, the dead-letter queue reports no worker
 * count (no "No workers" badge), and once a letter is retried and its flush succeeds, the
 * original failure counts nowhere — not in the dashboard, not in sluice_queue_jobs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generationPrefix } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
  hasWorkers: boolean | null;
  jobs: Array<{ id: string; failedReason?: string; stacktrace?: string[] }>;
}

describe('dead letters on the dashboard', () => {
  let h: Harness;
  let served: TestApi;
  let tokens: TestTokens;
  let call: Call;

  beforeEach(async () => {
    served = await serveTestApi(
      {
        flush: { maxRetries: 1, retryBaseMs: 5, retryMaxMs: 20 },
        port: 0,
      },
      { dashboard: true },
    );
    ({ h, tokens, call } = served);
  });

  afterEach(async () => {
    await served.close();
  });

  const board = async (queue: string, status: string): Promise<BoardQueue> => {
    const reply = await call(
      'GET',
      `/admin/queues/api/queues?activeQueue=${queue}&status=${status}&page=1&jobsPerPage=10`,
      {
        token: tokens.admin,
      },
    );
    expect(reply.status).toBe(200);
    return (reply.json.queues as BoardQueue[]).find((q) => q.name === queue)!;
  };
  const failedFlushGauge = async () => {
    const text = (await call('GET', '/metrics', { token: tokens.read })).bytes.toString();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('sluice_queue_jobs{queue="flush",state="failed"}'));
    return Number(line?.split(' ')[1]);
  };

  it('shows letters as failed with their error, no worker count, and forgets a failure its retry made good', async () => {
    await h.createTable(eventsTable('broken'));
    const fault = h.store.inject({
      op: 'put',
      key: `${generationPrefix('broken', 0)}*`,
      fault: 'fail',
      permanent: true,
    });
    h.startWorkers();
    await writeRows(h.sluice, 'broken', eventRows(1, 5));
    await waitFor(async () => (await h.scheduler.flush.getJobCounts()).failed === 1, {
      message: 'the flush failed for good',
    });

    const letters = await board('dead-letter', 'failed');
    expect(letters.counts).toMatchObject({ failed: 1, waiting: 0 });
    expect(letters.hasWorkers).toBeNull();
    expect(letters.jobs).toHaveLength(1);
    expect(letters.jobs[0]!.failedReason).toMatch(/^STORE_UNAVAILABLE: injected failure/);
    expect(letters.jobs[0]!.stacktrace?.[0]).toContain('SluiceError');
    expect((await board('dead-letter', 'waiting')).jobs).toEqual([]);
    expect(await failedFlushGauge()).toBe(1);

    fault.remove();
    await call('POST', '/v1/tables/broken/shards/0/reopen', { token: tokens.admin });
    const [letter] = (await call('GET', '/v1/dead-letters', { token: tokens.admin })).json.items;
    expect((await call('POST', `/v1/dead-letters/${letter.id}/retry`, { token: tokens.admin })).status).toBe(
      202,
    );
    await waitFor(async () => (await h.sluice.shards.stats('broken', 0)).committed.length === 1, {
      message: 'flushed after the retry',
    });

    expect((await board('flush', 'failed')).counts.failed).toBe(0);
    expect((await board('dead-letter', 'failed')).counts.failed).toBe(0);
    expect(await failedFlushGauge()).toBe(0);
  });
});

/**
 * Following a merge: POST …/merge answers 202 with a Location naming the job's status
 * resource, which shows its state, progress in rows and bytes, result, failure reason and
 * times; merge and flush jobs report progress as they go and log their completion at info
 * with rows, bytes and duration. Over real HTTP, on the harness with real workers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkProgress } from '../../shared/work/work-progress.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { type CapturedLog, captureLog } from '../support/log-capture.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('merge status and job progress', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;
  let captured: CapturedLog;

  beforeEach(async () => {
    captured = captureLog();
    served = await serveTestApi({ port: 0 }, { log: captured.log });
    ({ h, tokens, call } = served);
  });

  afterEach(async () => {
    await served.close();
  });

  /** Ten rows flushed by the flush worker into one committed generation of shard 0. */
  async function committedGeneration(table: string) {
    await h.createTable(eventsTable(table));
    h.startWorkers(['seal', 'flush']);
    await writeRows(h.sluice, table, eventRows(1, 10));
    await waitFor(async () => (await h.sluice.shards.stats(table, 0)).committed.length === 1, {
      message: 'generation 1 committed',
    });
    await h.workers?.close(1_000);
  }

  it('202 with a Location whose status goes from waiting to completed, with rows and bytes done of the total', async () => {
    await committedGeneration('orders');
    const posted = await call('POST', '/v1/tables/orders/merge', { token: tokens.admin });
    expect(posted.status).toBe(202);
    const location = posted.headers.location as string;
    expect(location).toBe(`/v1/tables/orders/merge/${posted.json.jobId}`);

    const waiting = await call('GET', location, { token: tokens.admin });
    expect(waiting).toMatchObject({
      status: 200,
      json: {
        id: posted.json.jobId,
        table: 'orders',
        state: 'waiting',
        progress: null,
        result: null,
        failedReason: null,
        finishedAt: null,
      },
    });
    expect(Date.parse(waiting.json.createdAt)).not.toBeNaN();

    h.startWorkers(['merge']);
    const done = await waitFor(
      async () => {
        const reply = await call('GET', location, { token: tokens.admin });
        return reply.json.state === 'completed' ? reply.json : undefined;
      },
      { message: 'the merge completed' },
    );
    const [generation] = (await h.sluice.shards.stats('orders', 0)).committed;
    expect(done.progress).toEqual({
      rowsDone: 10,
      rowsTotal: 10,
      bytesDone: generation!.bytes,
      bytesTotal: generation!.bytes,
    });
    expect(done.result).toMatchObject({ status: 'done' });
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));

    const logged = captured.lines.find((line) => line.msg === 'merge done');
    expect(logged).toMatchObject({
      level: 30,
      table: 'orders',
      rows: 10,
      bytes: generation!.bytes,
      durationMs: expect.any(Number),
    });
  });

  it('a failed merge shows its state and reason', async () => {
    await committedGeneration('broken');
    const [generation] = (await h.sluice.shards.stats('broken', 0)).committed;
    await h.store.delete(generation!.path);
    h.startWorkers(['merge']);
    const { headers } = await call('POST', '/v1/tables/broken/merge', { token: tokens.admin });
    const failed = await waitFor(
      async () => {
        const reply = await call('GET', headers.location as string, { token: tokens.admin });
        return reply.json.state === 'failed' ? reply.json : undefined;
      },
      { message: 'the merge failed' },
    );
    expect(failed.failedReason).toContain('DATA_MISSING');
    expect(failed.finishedAt).not.toBeNull();
  });

  it("404 JOB_NOT_FOUND for an unknown id or another table's job; admin only", async () => {
    await h.createTable(eventsTable('a'));
    await h.createTable(eventsTable('b'));
    const { json } = await call('POST', '/v1/tables/a/merge', { token: tokens.admin });
    const unknown = await call('GET', '/v1/tables/a/merge/no-such-job', { token: tokens.admin });
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'JOB_NOT_FOUND' } } });
    const other = await call('GET', `/v1/tables/b/merge/${json.jobId}`, { token: tokens.admin });
    expect(other).toMatchObject({ status: 404, json: { error: { code: 'JOB_NOT_FOUND' } } });
    expect((await call('GET', `/v1/tables/a/merge/${json.jobId}`, { token: tokens.write })).status).toBe(403);
  });

  it('a flush job reports its progress and logs its completion with rows, bytes and duration', async () => {
    await committedGeneration('events');
    const [job] = await h.scheduler.flush.getJobs(['completed']);
    expect(isWorkProgress(job?.progress)).toBe(true);
    expect(job?.progress).toMatchObject({ rowsDone: 10, rowsTotal: 10 });
    const logged = captured.lines.find((line) => line.msg === 'flush done');
    expect(logged).toMatchObject({
      level: 30,
      table: 'events',
      shard: 0,
      rows: 10,
      durationMs: expect.any(Number),
    });
    expect(logged?.bytes).toBeGreaterThan(0);
  });
});

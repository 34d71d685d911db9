/**
 * `/metrics` end to end: the API's route after a write, a seal and a flush through real
 * Redis and the file store, and a worker process's own listener after it flushed. Counters
 * live in the process-wide registry, so every assertion is on the change a step made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openApi } from '../../functions/app.ts';
import { type HttpServer, startServer } from '../../functions/server.ts';
import { startMetricsServer } from '../../observability/metrics-server.ts';
import { QUEUE } from '../../queue/queues.ts';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { poison } from '../../shared/lsm/poison.ts';
import { registry } from '../../shared/metrics.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { harnessRuntime } from '../support/harness-api.ts';
import { hashTag } from '../support/hash-tag.ts';
import { type Call, httpClient, type TestTokens, testTokens } from '../support/http-client.ts';
import { eventRows, eventsTable } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';
import { childEnv, spawnWorker, type WorkerProcess } from '../support/worker-process.ts';

type Samples = Map<string, number>;

/** Prometheus text → value by `name{label="value",…}`, labels sorted so lookups need no order. */
function parseMetrics(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(
      ([, k, v]) => `${k}="${v}"`,
    );
    samples.set(`${match[1]}{${labels.sort().join(',')}}`, Number(match[3]));
  }
  return samples;
}

function key(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return `${name}{${pairs.sort().join(',')}}`;
}

function value(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  return samples.get(key(name, labels)) ?? 0;
}

async function committed(h: Harness, table: string): Promise<number> {
  return (await h.parts.manifests.read(table, 0)).committed.length;
}

describe('/metrics', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serveApi(): Promise<{ h: Harness; call: Call; tokens: TestTokens }> {
    const tokens = testTokens();
    const h = await createHarness({ port: 0, tokens: JSON.parse(tokens.env) });
    cleanups.push(() => h.close());
    const api = openApi(harnessRuntime(h));
    cleanups.push(() => api.close());
    const server: HttpServer = await startServer(api.app, h.config, h.sluice.log);
    cleanups.push(() => server.close());
    return { h, call: httpClient(server.url), tokens };
  }

  it('the API serves the write, WAL, seal and flush metrics, job counts of every queue and poisoned shards', async () => {
    const { h, call, tokens } = await serveApi();
    const scrape = async () => {
      const reply = await call('GET', '/metrics', { token: tokens.read });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe(registry.contentType);
      return parseMetrics(reply.bytes.toString('utf8'));
    };
    expect((await call('GET', '/metrics')).status).toBe(401);
    await h.createTable(eventsTable('events'));
    h.startWorkers(['seal', 'flush']);
    const before = await scrape();

    const written = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { rows: eventRows(1, 25) },
    });
    expect(written.json).toMatchObject({ acked: 25 });
    await waitFor(async () => (await committed(h, 'events')) >= 1, { message: 'generation 1 flushed' });
    const after = await waitFor(
      async () => {
        const samples = await scrape();
        const flushed = value(samples, 'sluice_flush_duration_seconds_count', { outcome: 'ok' });
        return flushed > value(before, 'sluice_flush_duration_seconds_count', { outcome: 'ok' })
          ? samples
          : null;
      },
      { message: 'the flush to be timed' },
    );

    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    const upsertOk = { op: 'upsert', outcome: 'ok' };
    expect(moved('sluice_write_rows_total', upsertOk)).toBe(25);
    expect(moved('sluice_write_duration_seconds_count', upsertOk)).toBe(1);
    expect(moved('sluice_wal_puts_total', { outcome: 'ok' })).toBe(1);
    expect(moved('sluice_wal_entry_writes_count')).toBe(1);
    expect(moved('sluice_wal_entry_rows_sum')).toBe(25);
    expect(moved('sluice_seal_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(moved('sluice_queue_wait_seconds_count', { queue: QUEUE.seal })).toBeGreaterThanOrEqual(1);
    expect(moved('sluice_queue_wait_seconds_count', { queue: QUEUE.flush })).toBeGreaterThanOrEqual(1);
    for (const queue of Object.values(QUEUE)) {
      for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed']) {
        expect(after.has(key('sluice_queue_jobs', { queue, state })), `${queue} ${state}`).toBe(true);
      }
    }
    expect(
      value(after, 'sluice_queue_jobs', { queue: QUEUE.flush, state: 'completed' }),
    ).toBeGreaterThanOrEqual(1);
    expect(after.get(key('sluice_poisoned_shards'))).toBe(0);

    // Poison is read from Redis at scrape time, so every process sees it; a refused write counts under its code.
    await poison(
      h.parts,
      { table: 'events', shard: 0 },
      { code: 'DATA_CORRUPT', generation: 2, cause: 'test' },
    );
    const refused = await call('POST', '/v1/tables/events/rows', {
      token: tokens.write,
      json: { rows: eventRows(26, 29) },
    });
    expect(refused.status).toBe(503);
    const poisoned = await scrape();
    expect(poisoned.get(key('sluice_poisoned_shards'))).toBe(1);
    expect(
      value(poisoned, 'sluice_write_rows_total', { op: 'upsert', outcome: 'shard_poisoned' }) -
        value(after, 'sluice_write_rows_total', { op: 'upsert', outcome: 'shard_poisoned' }),
    ).toBe(4);
    await h.sluice.shards.reopen('events', 0);
    expect((await scrape()).get(key('sluice_poisoned_shards'))).toBe(0);
  });

  it('every Redis key a write, seal and flush leave carries a hash tag; a queue’s keys carry its name', async () => {
    const { h, call, tokens } = await serveApi();
    await h.createTable(eventsTable('tagged', { shards: 2 }));
    h.startWorkers(['seal', 'flush']);
    await call('POST', '/v1/tables/tagged/rows', {
      token: tokens.write,
      json: { rows: eventRows(1, 40) },
      headers: { 'Idempotency-Key': 'k1' },
    });
    await waitFor(async () => (await committed(h, 'tagged')) >= 1, { message: 'shard 0 flushed' });
    const keys = await h.redis.keys(`${h.config.redisPrefix}:*`);
    const untagged = keys.filter((redisKey) => hashTag(redisKey) === redisKey);
    expect(untagged).toEqual([]);
    const tags = new Set(keys.map(hashTag));
    const expected = [...Object.values(QUEUE), 'tagged/0', 'tagged/1', 'tagged', 'drop/tagged', 'sampler'];
    expect([...tags].filter((tag) => !expected.includes(tag))).toEqual([]);
    for (const tag of [QUEUE.seal, QUEUE.flush, 'tagged/0', 'tagged']) expect(tags).toContain(tag);
    expect(keys.some((redisKey) => redisKey.startsWith(`${h.config.redisPrefix}:{flush}:flush:`))).toBe(true);
  });

  it("a worker's metrics port in use stops it with a clear error", async () => {
    const taken = await startMetricsServer('127.0.0.1', 0);
    cleanups.push(() => taken.close());
    const port = Number(new URL(taken.url).port);
    await expect(startMetricsServer('127.0.0.1', port)).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining('SLUICE_METRICS_PORT'),
    });
  });

  it('a worker process serves its own /metrics and /healthz, with the flushes it ran', async () => {
    const h = await createHarness();
    cleanups.push(() => h.close());
    await h.createTable(eventsTable('remote'));
    const worker: WorkerProcess = await spawnWorker(childEnv(h.config, { SLUICE_METRICS_PORT: '0' }));
    cleanups.push(() => worker.stop());
    const ready = worker.lines.find((line) => line.msg === 'workers ready');
    const metricsUrl = String(ready?.metricsUrl);
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const def = await h.sluice.tables.describe('remote');
    await h.sluice.writes.append('remote', jsonRowsToRecordBatch(def.schema, eventRows(1, 10)));
    await waitFor(async () => (await committed(h, 'remote')) >= 1, { message: 'the worker to flush' });

    const health = await fetch(`${metricsUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${metricsUrl}/v1/tables`)).status).toBe(404);
    const samples = await waitFor(
      async () => {
        const reply = await fetch(`${metricsUrl}/metrics`);
        expect(reply.headers.get('content-type')).toBe(registry.contentType);
        const parsed = parseMetrics(await reply.text());
        return value(parsed, 'sluice_flush_duration_seconds_count', { outcome: 'ok' }) >= 1 ? parsed : null;
      },
      { message: "the worker's flush in its metrics" },
    );
    expect(value(samples, 'sluice_queue_wait_seconds_count', { queue: QUEUE.flush })).toBeGreaterThanOrEqual(
      1,
    );
    expect(samples.has(key('sluice_queue_jobs', { queue: QUEUE.flush, state: 'completed' }))).toBe(true);
    expect(samples.get(key('sluice_poisoned_shards'))).toBe(0);
    // The writes were this process's: the worker counted none.
    expect(value(samples, 'sluice_write_rows_total', { op: 'upsert', outcome: 'ok' })).toBe(0);
    expect(await worker.stop()).toBe(0);
  });
});

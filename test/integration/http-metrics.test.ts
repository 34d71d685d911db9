/** /metrics carries what people look for: HTTP by route and status, read latency, bytes, build info, process metrics. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { eventRows, eventsTable } from '../support/rows.ts';

/** The value of one sample line of the exposition text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics people look for', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeEach(async () => {
    served = await serveTestApi();
    ({ h, tokens, call } = served);
    await h.createTable(eventsTable('events'));
  });

  afterEach(async () => {
    await served.close();
  });

  it('counts requests by route pattern and status, times reads, and counts bytes written and read', async () => {
    const metrics = async () => (await call('GET', '/metrics', { token: tokens.read })).bytes.toString();
    const before = await metrics();
    const body = { rows: eventRows(1, 5) };
    await call('POST', '/v1/tables/events/rows', { token: tokens.write, json: body });
    const found = await call('GET', '/v1/tables/events/rows?key=1', { token: tokens.read });
    await call('GET', '/v1/tables/events/rows?key=99', { token: tokens.read });
    const after = await metrics();

    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    const rows = 'route="/v1/tables/:t/rows"';
    expect(delta(`sluice_http_requests_total{${rows},method="POST",status="200"}`)).toBe(1);
    expect(delta(`sluice_http_requests_total{${rows},method="GET",status="404"}`)).toBe(1);
    expect(delta(`sluice_http_request_duration_seconds_count{${rows},method="GET",status="200"}`)).toBe(1);
    expect(delta('sluice_read_duration_seconds_count{op="lookup",status="200"}')).toBe(1);
    expect(delta('sluice_write_bytes_total{op="upsert"}')).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(delta('sluice_read_bytes_total{op="lookup"}')).toBe(found.bytes.length);
    expect(after).not.toContain('route="/v1/tables/events');
    expect(
      sample(after, `sluice_build_info{version="${packageJson.version}",node="${process.versions.node}"}`),
    ).toBe(1);
    expect(sample(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after).toContain('nodejs_eventloop_lag_seconds');
  });
});

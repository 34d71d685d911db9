/** Scans answer Arrow pages of up to 10,000 rows; JSON pages stay at 1,000. */
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const ARROW = { accept: 'application/vnd.apache.arrow.stream' };

describe('scan page sizes', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeAll(async () => {
    served = await serveTestApi();
    ({ h, tokens, call } = served);
    await h.createTable(eventsTable('events'));
    await writeRows(h.sluice, 'events', eventRows(1, 10_001));
  });

  afterAll(async () => {
    await served.close();
  });

  it('an Arrow page holds up to 10,000 rows and names the next page', async () => {
    const page = await call('GET', '/v1/tables/events/rows?limit=10000', {
      token: tokens.read,
      headers: ARROW,
    });
    expect(page.status).toBe(200);
    expect(tableFromIPC(page.bytes).numRows).toBe(10_000);
    const rest = await call(
      'GET',
      `/v1/tables/events/rows?limit=10000&after=${page.headers['sluice-next']}`,
      {
        token: tokens.read,
        headers: ARROW,
      },
    );
    expect(tableFromIPC(rest.bytes).numRows).toBe(1);
    expect(rest.headers['sluice-next']).toBeUndefined();
  });

  it('refuses more than 10,000 rows for Arrow and more than 1,000 for JSON, naming the maximum', async () => {
    const arrow = await call('GET', '/v1/tables/events/rows?limit=10001', {
      token: tokens.read,
      headers: ARROW,
    });
    expect(arrow).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_REQUEST', details: { max: 10_000 } } },
    });
    const json = await call('GET', '/v1/tables/events/rows?limit=1001', { token: tokens.read });
    expect(json).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_REQUEST', details: { max: 1000 } } },
    });
  });
});

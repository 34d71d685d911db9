/**
 * Retention (docs/design.md, "Retention"): rows whose timestamp column is older than the
 * table's `maxAgeSeconds` are never read, from the WAL, L0 or the base, and the merge lane
 * deletes them from the base; rows inside retention never disappear. The clock is the
 * test's, injected into the process, so the cutoff is exact.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tableConfigKey } from '../../shared/table/paths.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';

const START = Date.parse('2026-01-01T12:00:00Z');

function logsTable(name: string, retention: unknown = { column: 'ts', maxAgeSeconds: 3600 }) {
  return {
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'ts', type: 'timestamp[ms]', nullable: false },
        { name: 'maybe', type: 'timestamp[ms]', nullable: true },
        { name: 'note', type: 'utf8', nullable: true },
      ],
    },
    primaryKey: ['id'],
    retention,
  };
}

describe('retention', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;
  let now: number;

  beforeEach(async () => {
    now = START;
    served = await serveTestApi({}, { clock: () => now });
    ({ h, tokens, call } = served);
  });

  afterEach(() => served.close());

  it('is part of the table: created, described, stored', async () => {
    const created = await call('POST', '/v1/tables', { token: tokens.write, json: logsTable('logs') });
    expect(created.status).toBe(201);
    expect(created.json.retention).toEqual({ column: 'ts', maxAgeSeconds: 3600 });
    const described = await call('GET', '/v1/tables/logs', { token: tokens.read });
    expect(described.json.retention).toEqual({ column: 'ts', maxAgeSeconds: 3600 });
    const plain = await call('POST', '/v1/tables', { token: tokens.write, json: logsTable('plain', null) });
    expect(plain.json.retention).toBeNull();
  });

  it.each([
    ['a nullable column', { column: 'maybe', maxAgeSeconds: 3600 }, 'nullable'],
    ['a column that is not a timestamp', { column: 'note', maxAgeSeconds: 3600 }, 'not a timestamp'],
    ['a key column', { column: 'id', maxAgeSeconds: 3600 }, 'not a timestamp'],
    ['maxAgeSeconds 0', { column: 'ts', maxAgeSeconds: 0 }, 'maxAgeSeconds'],
    ['maxAgeSeconds "x"', { column: 'ts', maxAgeSeconds: 'x' }, 'maxAgeSeconds'],
    ['no column', { maxAgeSeconds: 3600 }, 'column'],
    ['a list', [{ column: 'ts', maxAgeSeconds: 3600 }], 'retention must be'],
  ])(
    'a create body with retention on %s is 400 INVALID_SETTINGS and creates nothing',
    async (_, retention, says) => {
      const refused = await call('POST', '/v1/tables', {
        token: tokens.write,
        json: logsTable('refused', retention),
      });
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('INVALID_SETTINGS');
      expect(refused.json.error.message).toContain(says);
      expect(refused.json.error.message).toMatch(/"maxAgeSeconds"/);
      expect((await call('GET', '/v1/tables/refused', { token: tokens.read })).status).toBe(404);
      expect(await h.store.head(tableConfigKey('refused'))).toBeNull();
    },
  );
});

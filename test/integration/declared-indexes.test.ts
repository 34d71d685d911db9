/**
 * Declared indexes (docs/base-table.md, "Declared indexes"): declared at create or later
 * over HTTP, built by the table's merge lane once the base has rows enough, kept up to date
 * by every optimize after, and shown in describe with the rows each covers. A declaration
 * that does not fit the table is refused with what to send instead, and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../shared/log.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import type { Call, TestTokens } from '../support/http-client.ts';
import { writeRows } from '../support/rows.ts';

const DIM = 8;

function docRows(from: number, to: number) {
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const id = from + i;
    return {
      id,
      emb: Array.from({ length: DIM }, (_, d) => Math.sin(id * (d + 1))),
      label: `label-${id % 5}`,
      score: id / 3,
      body: `document ${id} about ${id % 2 === 0 ? 'rivers' : 'mountains'}`,
    };
  });
}

const docsTable = (name: string, indexes: unknown[]) => ({
  name,
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'emb', type: `vector[float32, ${DIM}]` },
      { name: 'label', type: 'utf8' },
      { name: 'score', type: 'float64' },
      { name: 'body', type: 'utf8' },
    ],
  },
  primaryKey: ['id'],
  indexes,
});

describe('declared indexes', () => {
  let h: Harness;
  let served: TestApi;
  let call: Call;
  let tokens: TestTokens;

  beforeEach(async () => {
    served = await serveTestApi({ port: 0 });
    ({ h, tokens, call } = served);
  });

  afterEach(() => served.close());

  /** Writes, seals and flushes the rows, then runs one job of the table's merge lane. */
  async function mergedLane(table: string, rows: ReturnType<typeof docRows>) {
    if (rows.length > 0) {
      await writeRows(h.sluice, table, rows);
      await h.sluice.shards.seal(table, 0);
      await h.sluice.shards.flush(table, 0);
    }
    return h.sluice.tableWork.runLane({
      table,
      queueWaitMs: null,
      log: silentLogger,
      onWorkProgress: () => {},
    });
  }

  async function coverage(table: string) {
    const described = await call('GET', `/v1/tables/${table}`, { token: tokens.read });
    expect(described.status).toBe(200);
    const indexes = (described.json.stats.base?.indexes ?? []) as Array<{
      name: string;
      indexedRows: number;
      unindexedRows: number;
    }>;
    return {
      declared: described.json.indexes as Array<{ column: string; type: string }>,
      built: Object.fromEntries(indexes.map((i) => [i.name, [i.indexedRows, i.unindexedRows]])),
    };
  }

  it('built once the base has rows enough, kept up to date, shown with the rows each covers', async () => {
    const created = await call('POST', '/v1/tables', {
      token: tokens.write,
      json: docsTable('docs', [
        { column: 'emb', type: 'ivf_pq', metric: 'cosine' },
        { column: 'body', type: 'fts' },
      ]),
    });
    expect(created.status).toBe(201);
    expect(created.json.indexes).toEqual([
      { column: 'emb', type: 'ivf_pq', metric: 'cosine' },
      { column: 'body', type: 'fts' },
    ]);

    // 100 rows: too few to train the vector index; the full-text one is built.
    expect(await mergedLane('docs', docRows(1, 100))).toMatchObject({ optimize: { reason: 'indexes' } });
    expect((await coverage('docs')).built).toEqual({ id_idx: [100, 0], body_idx: [100, 0] });

    expect(await mergedLane('docs', docRows(101, 400))).toMatchObject({ optimize: { reason: 'indexes' } });
    expect((await coverage('docs')).built).toEqual({
      id_idx: [400, 0],
      body_idx: [400, 0],
      emb_idx: [400, 0],
    });

    const declared = await call('POST', '/v1/tables/docs/indexes', {
      token: tokens.admin,
      json: { column: 'label', type: 'bitmap' },
    });
    expect(declared.status).toBe(202);
    expect(declared.json.index).toEqual({ column: 'label', type: 'bitmap' });
    expect(declared.headers.location).toBe(`/v1/tables/docs/optimize/${declared.json.jobId}`);
    // The job it asked for runs the lane: nothing to merge, the new index to build.
    expect(await mergedLane('docs', [])).toMatchObject({ optimize: { reason: 'requested' } });
    const after = await coverage('docs');
    expect(after.declared.map((d) => d.column)).toEqual(['emb', 'body', 'label']);
    expect(after.built.label_idx).toEqual([400, 0]);

    // Every later merge that catches up leaves every index covering every row.
    expect(await mergedLane('docs', docRows(401, 450))).toMatchObject({ optimize: { reason: 'caught-up' } });
    expect((await coverage('docs')).built).toEqual({
      id_idx: [450, 0],
      body_idx: [450, 0],
      emb_idx: [450, 0],
      label_idx: [450, 0],
    });
  });

  it('a declaration that does not fit the table is refused with what to send, and changes nothing', async () => {
    const refusedCreate = await call('POST', '/v1/tables', {
      token: tokens.write,
      json: docsTable('refused', [{ column: 'score', type: 'fts' }]),
    });
    expect(refusedCreate.status).toBe(400);
    expect(refusedCreate.json.error.code).toBe('INVALID_INDEX');
    expect((await call('GET', '/v1/tables/refused', { token: tokens.read })).status).toBe(404);

    await call('POST', '/v1/tables', {
      token: tokens.write,
      json: docsTable('kept', [{ column: 'body', type: 'fts' }]),
    });
    const declare = (json: unknown) => call('POST', '/v1/tables/kept/indexes', { token: tokens.admin, json });
    const cases: Array<[unknown, number, string, string]> = [
      [{ column: 'nope', type: 'btree' }, 400, 'INVALID_INDEX', 'must name a column of the table: id, emb'],
      [{ column: 'score', type: 'fts' }, 400, 'INVALID_INDEX', 'it can take btree, bitmap'],
      [{ column: 'emb', type: 'btree' }, 400, 'INVALID_INDEX', 'it can take ivf_pq, ivf_hnsw_sq'],
      [{ column: 'label', type: 'btree', metric: 'l2' }, 400, 'INVALID_INDEX', 'for vector indexes only'],
      [{ column: 'emb', type: 'ivf_pq', metric: 'hamming' }, 400, 'INVALID_INDEX', 'l2, cosine, dot'],
      [{ column: 'label', type: 'hash' }, 400, 'INVALID_INDEX', 'btree, bitmap, ivf_pq, ivf_hnsw_sq, fts'],
      [{ column: 'body', type: 'fts' }, 409, 'INDEX_EXISTS', 'body has a declared index already'],
      [{ column: 'id', type: 'btree' }, 409, 'INDEX_EXISTS', 'primary key'],
    ];
    for (const [json, status, code, says] of cases) {
      const refused = await declare(json);
      expect([json, refused.status, refused.json.error.code]).toEqual([json, status, code]);
      expect(refused.json.error.message).toContain(says);
    }
    expect((await coverage('kept')).declared).toEqual([{ column: 'body', type: 'fts' }]);
    expect((await call('POST', '/v1/tables/kept/indexes', { token: tokens.write, json: {} })).status).toBe(
      403,
    );
  });
});

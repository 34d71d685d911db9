/**
 * Search over the base and every pending row (docs/design.md, "Search"): a table with rows
 * merged into the base, overwritten and deleted in L0 generations above it, and new rows in
 * the WAL tail. A flat search answers exactly the brute-force top-k of the live rows for
 * l2, cosine and dot, with and without a filter; an indexed base keeps recall@10 ≥ 0.95 and
 * never answers a deleted or superseded row; full text finds a pending row by its word and
 * never a deleted one; bad searches are refused saying what to send.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import type { SluiceError } from '../../shared/errors.ts';
import { filterRunAsks, probedShares, searchAsks } from '../../shared/metrics.ts';
import { readSnapshot } from '../../shared/read/read-snapshot.ts';
import { type PendingGroup, pendingGroups } from '../../shared/search/pending-groups.ts';
import { PendingTables } from '../../shared/search/pending-tables.ts';
import { searchRows } from '../../shared/search/search.ts';
import type { SearchInput } from '../../shared/search/search-request.ts';
import { parseSearch } from '../../shared/search/search-request.ts';
import type { Metric } from '../../shared/table/index-decl.ts';
import { runCli } from '../support/cli-process.ts';
import { counterSince } from '../support/counter-since.ts';
import type { Harness } from '../support/harness.ts';
import { serveTestApi, type TestApi } from '../support/harness-api.ts';
import { seededRandom } from '../support/random.ts';
import { flushedGeneration, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const DIM = 8;
const CATEGORIES = ['a', 'b', 'c'];

const table = (name: string, indexes: unknown[]) => ({
  name,
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'category', type: 'utf8' },
      { name: 'score', type: 'float64' },
      { name: 'body', type: 'utf8', nullable: true },
      { name: 'emb', type: `vector[float32, ${DIM}]` },
    ],
  },
  primaryKey: ['id'],
  shards: 2,
  indexes,
});

/** A histogram's sum and count, to read what one call observed. */
async function sumAndCount(histogram: typeof probedShares): Promise<{ sum: number; count: number }> {
  const { values } = await histogram.get();
  const total = (suffix: string) =>
    values.filter((v) => v.metricName?.endsWith(`_${suffix}`)).reduce((sum, v) => sum + v.value, 0);
  return { sum: total('sum'), count: total('count') };
}

/** What the table holds, kept beside it: id → row, deletes removed. */
type Model = Map<number, JsonRow>;

function rowsOf(random: () => number, from: number, to: number, words: (id: number) => string): JsonRow[] {
  return Array.from({ length: to - from }, (_, i) => {
    const id = from + i;
    const emb = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
    return {
      id,
      category: CATEGORIES[id % 3]!,
      score: Math.round(random() * 100) / 100,
      body: words(id),
      emb,
    };
  });
}

/**
 * The base gets ids 0-399 (merged, optimized so declared indexes are built); then, pending:
 * ids 0-59 overwritten and 60-89 deleted in an L0 generation, 400-459 new in the WAL tail.
 */
async function fill(h: Harness, name: string, seed: number): Promise<Model> {
  const random = seededRandom(seed);
  const model: Model = new Map();
  const put = (rows: JsonRow[]) => {
    for (const row of rows) model.set(row.id as number, row);
    return rows;
  };
  await flushedGeneration(h.sluice, name, put(rowsOf(random, 0, 400, (id) => `walrus number ${id}`)));
  await h.sluice.tableWork.merge(name);
  await h.sluice.tableWork.optimize(name);
  await writeRows(h.sluice, name, put(rowsOf(random, 0, 60, (id) => `seal number ${id}`)));
  const deleted = Array.from({ length: 30 }, (_, i) => 60 + i);
  await h.sluice.writes.delete(name, deleted);
  for (const id of deleted) model.delete(id);
  for (let shard = 0; shard < 2; shard++) {
    await h.sluice.shards.seal(name, shard);
    await h.sluice.shards.flush(name, shard);
  }
  await writeRows(h.sluice, name, put(rowsOf(random, 400, 460, (id) => `zebra number ${id}`)));
  return model;
}

function distance(metric: Metric, a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  if (metric === 'dot') return 1 - dot;
  if (metric === 'l2') return a.reduce((sum, x, i) => sum + (x - b[i]!) ** 2, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return 1 - dot / (norm(a) * norm(b));
}

function bruteForce(model: Model, metric: Metric, vector: number[], k: number, keep = (_: JsonRow) => true) {
  return [...model.values()]
    .filter(keep)
    .map((row) => ({ id: row.id as number, d: distance(metric, row.emb as number[], vector) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k)
    .map((r) => r.id);
}

/** The multi-generation groups a search reads, once the background has built every one it wants. */
async function builtBlocks(h: Harness, name: string, tables: PendingTables): Promise<PendingGroup[]> {
  const def = await h.sluice.tables.describe(name);
  const plan = await waitFor(
    async () => {
      const snapshot = await readSnapshot(h.parts, def, [0]);
      const plan = pendingGroups(def, snapshot, (key) => tables.isBuilt(key));
      return plan.build.length === 0 ? plan : null;
    },
    { message: `${name}: every wanted block built`, timeoutMs: 60_000 },
  );
  return plan.search.filter((group) => group.runs.length > 1);
}

describe('search over the base and every pending row', () => {
  let api: TestApi;
  let h: Harness;
  let flat: Model;
  let indexed: Model;

  beforeAll(async () => {
    api = await serveTestApi({ port: 0 });
    h = api.h;
    await h.createTable(table('flat', [{ column: 'body', type: 'fts' }]));
    await h.createTable(table('indexed', [{ column: 'emb', type: 'ivf_hnsw_sq', metric: 'l2' }]));
    flat = await fill(h, 'flat', 7);
    indexed = await fill(h, 'indexed', 11);
  }, 120_000);

  afterAll(() => api?.close());

  const search = async (name: string, input: SearchInput) => {
    const def = await h.sluice.tables.describe(name);
    const { rows } = await h.sluice.reads.search(name, input);
    const fields = def.schema.fields.filter((f) => rows.schema.fields.some((r) => r.name === f.name));
    return { rows, json: tableToJsonRows({ ...def.schema, fields }, rows.select(fields.map((f) => f.name))) };
  };

  it('a flat search is the exact top-k of the live rows, for l2, cosine and dot, with and without a filter', async () => {
    const random = seededRandom(99);
    const filter = "category = 'a' AND score > 0.3";
    const keep = (row: JsonRow) => row.category === 'a' && (row.score as number) > 0.3;
    for (const metric of ['l2', 'cosine', 'dot'] as const) {
      for (let probe = 0; probe < 4; probe++) {
        const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
        const plain = await search('flat', { vector, metric, k: 10 });
        expect([metric, plain.json.map((r) => r.id)]).toEqual([metric, bruteForce(flat, metric, vector, 10)]);
        const distances = plain.rows.getChild('_distance')!.toArray() as Float32Array;
        expect([...distances]).toEqual([...distances].sort((a, b) => a - b));
        expect(distances[0]).toBeCloseTo(distance(metric, plain.json[0]!.emb as number[], vector), 4);
        for (const row of plain.json) expect(row).toEqual(flat.get(row.id as number));

        const filtered = await search('flat', { vector, metric, k: 10, filter });
        expect([metric, filtered.json.map((r) => r.id)]).toEqual([
          metric,
          bruteForce(flat, metric, vector, 10, keep),
        ]);
      }
    }
  });

  it('an indexed base keeps recall@10 of at least 0.95 and answers no deleted or superseded row', async () => {
    const health = await h.parts.datasets.health(await h.sluice.tables.describe('indexed'));
    expect(health!.indexes.find((i) => i.columns.includes('emb'))).toMatchObject({ unindexedRows: 0 });
    const random = seededRandom(5);
    let found = 0;
    const probes = 20;
    for (let probe = 0; probe < probes; probe++) {
      const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
      const { json } = await search('indexed', { vector, k: 10 });
      for (const row of json) expect(row).toEqual(indexed.get(row.id as number));
      const truth = new Set(bruteForce(indexed, 'l2', vector, 10));
      found += json.filter((row) => truth.has(row.id as number)).length;
    }
    expect(found / (probes * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it("a vector search probes the share of the base's partitions its nprobes asks for, and every indexed pending block the same share", async () => {
    // 400 base rows: an index of floor(sqrt(400 / 16)) = 5 partitions.
    const vector = new Array(DIM).fill(0.5);
    const shareOf = async (name: string, input: Partial<SearchInput>) => {
      const before = await sumAndCount(probedShares);
      await search(name, { vector, k: 10, ...input });
      const after = await sumAndCount(probedShares);
      expect(after.count - before.count).toBe(1);
      return after.sum - before.sum;
    };
    expect(await shareOf('indexed', { nprobes: 1 })).toBeCloseTo(0.2);
    expect(await shareOf('indexed', { nprobes: 2 })).toBeCloseTo(0.4);
    expect(await shareOf('indexed', {})).toBe(1);
    // Indexed for l2: a cosine search compares every base row, so every pending row too.
    expect(await shareOf('indexed', { nprobes: 1, metric: 'cosine' })).toBe(1);
    expect(await shareOf('flat', { nprobes: 1 })).toBe(1);
  });

  it('a search reads its snapshot beside the index declarations, not after them (on S3 each is a round trip)', async () => {
    const started: Record<string, number> = {};
    const at = (what: string, ms: number) => () => {
      started[what] ??= performance.now();
      return ms;
    };
    const declarations = h.store.inject({
      op: 'get',
      key: 'tables/flat/indexes.json',
      latencyMs: at('declarations', 500),
    });
    const base = h.store.inject({ key: /^tables\/flat\/base\/_manifest\//, latencyMs: at('base', 0) });
    try {
      await search('flat', { vector: new Array(DIM).fill(0.5), k: 10 });
    } finally {
      declarations.remove();
      base.remove();
    }
    expect(declarations.hits).toBe(1);
    expect(base.hits).toBeGreaterThan(0);
    // Read after the declarations, the base manifest would have waited out their 500 ms.
    expect(started.base! - started.declarations!).toBeLessThan(250);
  });

  it('full text finds a pending row by its word, and never a deleted or overwritten one', async () => {
    const zebra = await search('flat', { text: 'zebra', k: 100 });
    expect(zebra.json.map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 60 }, (_, i) => 400 + i),
    );
    expect(zebra.rows.getChild('_score')!.length).toBe(60);
    const walrus = await search('flat', { text: 'walrus', k: 1000, filter: 'id < 100' });
    // 0-59 were overwritten without the word, 60-89 deleted: of ids below 100 only 90-99 still say walrus.
    expect(walrus.json.map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, i) => 90 + i),
    );
  });

  it('the base is not asked again for rows its overwritten keys crowd out when the pending rows already hold k better ones', async () => {
    await h.createTable(table('crowded', []));
    const random = seededRandom(23);
    const near = (spread: number) =>
      Array.from({ length: DIM }, () => Math.fround(0.5 + (random() - 0.5) * spread));
    const model: Model = new Map();
    const put = (rows: JsonRow[]) => {
      for (const row of rows) model.set(row.id as number, row);
      return rows;
    };
    // Ids 0-99 lie near the query in the base, and nearer still in the WAL tail, which overwrites them.
    const base = rowsOf(random, 0, 400, () => 'base').map((row, id) =>
      id < 100 ? { ...row, emb: near(0.1) } : row,
    );
    await flushedGeneration(h.sluice, 'crowded', put(base));
    await h.sluice.tableWork.merge('crowded');
    await writeRows(
      h.sluice,
      'crowded',
      put(rowsOf(random, 0, 100, () => 'tail').map((row) => ({ ...row, emb: near(0.01) }))),
    );

    const vector = new Array(DIM).fill(0.5);
    const baseAsks = await counterSince(searchAsks, { side: 'base' });
    const { json } = await search('crowded', { vector, k: 10 });
    expect(json.map((r) => r.id)).toEqual(bruteForce(model, 'l2', vector, 10));
    for (const row of json) expect(row.body).toBe('tail');
    // Its first ask brought back only overwritten rows, all farther than the tail's ten.
    expect(await baseAsks()).toBe(1);
  });

  it('a filter alone is a scan of the rows it passes, paged, the newest value of a key deciding', async () => {
    const pages = async (filter: string) => {
      const ids: number[] = [];
      let after: string | undefined;
      do {
        const { rows, next } = await h.sluice.reads.search('flat', { filter, k: 25, columns: ['id'], after });
        ids.push(...[...rows.getChild('id')!].map(Number));
        after = next ?? undefined;
      } while (after);
      return ids;
    };
    const def = await h.sluice.tables.describe('flat');
    const runs = (await readSnapshot(h.parts, def, [...Array(def.shards).keys()])).runs.length;
    expect(runs).toBeGreaterThan(1);
    const asked = await counterSince(filterRunAsks, {});
    // 0-59 said walrus in the base and say seal now; 60-89 are deleted: only 90-399 still say walrus.
    const walrus = await pages("body LIKE 'walrus%'");
    expect(walrus).toHaveLength(310);
    // Each pending run's table was asked once for the filter, not once per page, and not again.
    expect(await asked()).toBe(runs);
    expect(await pages("body LIKE 'walrus%'")).toEqual(walrus);
    expect(await asked()).toBe(runs);
    expect([...walrus].sort((a, b) => a - b)).toEqual(Array.from({ length: 310 }, (_, i) => 90 + i));
    expect((await pages("body LIKE 'seal%'")).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    const first = await h.sluice.reads.search('flat', { filter: 'id < 10', k: 5 });
    await expect(
      h.sluice.reads.search('flat', { filter: 'id < 20', k: 5, after: first.next! }),
    ).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
  });

  it('over HTTP: JSON rows with _distance, and every bad search a 400 that says what to send', async () => {
    const vector = Array.from({ length: DIM }, () => 0.1);
    const ok = await api.call('POST', '/v1/tables/flat/search', {
      token: api.tokens.read,
      json: { vector, k: 3, columns: ['id', 'category'] },
    });
    expect(ok.status).toBe(200);
    const rows = (ok.json as { rows: Array<Record<string, unknown>> }).rows;
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0]!)).toEqual(['id', 'category', '_distance']);

    const refusals: Array<[unknown, string, RegExp]> = [
      [{ vector: [1, 2] }, 'INVALID_SEARCH', /vector has 2 numbers; column "emb" holds vectors of 8/],
      // JSON has no Infinity, but 1e999 parses as one; 1e39 is a double no float32 holds.
      [`{"vector":[${vector.slice(1).join(',')},1e999]}`, 'INVALID_REQUEST', /vector.*send \{"vector"/],
      [{ vector: [...vector.slice(1), 1e39] }, 'INVALID_SEARCH', /vector\[7\] is not a finite float32/],
      [{ vector, k: 0 }, 'INVALID_SEARCH', /send an integer from 1 to 1000/],
      [{ vector, k: 1001 }, 'INVALID_SEARCH', /send an integer from 1 to 1000/],
      [
        { vector, column: 'nope' },
        'INVALID_SEARCH',
        /unknown column "nope"; the columns of flat are id, category/,
      ],
      [
        { vector, column: 'body' },
        'INVALID_SEARCH',
        /column "body" is not a vector column; name one of: emb/,
      ],
      [{ vector, filter: 'this is not sql' }, 'INVALID_FILTER', /Lance can run: .*sql parser error/],
      [{ vector, filter: 'missing > 1' }, 'INVALID_FILTER', /No field named missing/],
      // Fine on no rows, failing on the table's: checked, then refused as it runs.
      [{ vector, filter: 'id / 0 > 1' }, 'INVALID_FILTER', /failed on the table's rows: .*Divide by zero/],
      [{ filter: 'CAST(category AS INT) > 1' }, 'INVALID_FILTER', /Cannot cast string/],
      [{ vector, text: 'both' }, 'INVALID_SEARCH', /not both/],
      [{ text: 'x', textColumn: 'category' }, 'INVALID_SEARCH', /column "category" has no full-text index/],
      [{ vector: ['NaN'] }, 'INVALID_REQUEST', /./],
      [{ vector, colour: 'red' }, 'INVALID_REQUEST', /./],
    ];
    for (const [json, code, message] of refusals) {
      const body = typeof json === 'string' ? { body: json, contentType: 'application/json' } : { json };
      const res = await api.call('POST', '/v1/tables/flat/search', { token: api.tokens.read, ...body });
      const error = (res.json as { error: SluiceError }).error;
      expect([json, res.status, error.code]).toEqual([json, 400, code]);
      expect([json, error.message]).toEqual([json, expect.stringMatching(message)]);
    }
  });

  it('from the client and the command line: the same rows as table, JSON lines and CSV', async () => {
    const client = new SluiceClient({ url: api.url, token: api.tokens.read });
    const vector = Array.from({ length: DIM }, (_, i) => (i % 2 ? 0.5 : -0.5));
    const { rows } = await client.search('flat', { vector, k: 3, filter: "category = 'b'" });
    expect(rows.map((r) => r.id)).toEqual(bruteForce(flat, 'l2', vector, 3, (r) => r.category === 'b'));

    const env = { url: api.url, token: api.tokens.read };
    const args = [
      'search',
      'flat',
      '--vector',
      JSON.stringify(vector),
      '-k',
      '3',
      '--filter',
      "category = 'b'",
    ];
    const json = await runCli([...args, '--format', 'json'], env);
    expect([json.code, json.stderr]).toEqual([0, '']);
    const lines = json.stdout
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(rows);

    const table = await runCli([...args, '--columns', 'id,category'], env);
    expect(table.stdout.toString().split('\n')[0]).toMatch(/^id\s+category\s+_distance$/);
    expect(table.stdout.toString().trimEnd().split('\n')).toHaveLength(4);

    const csv = await runCli(
      ['search', 'flat', '--text', 'zebra', '-k', '2', '--format', 'csv', '--columns', 'id,body'],
      env,
    );
    expect(csv.stdout.toString().split('\n')[0]).toBe('id,body,_score');

    const both = await runCli(['search', 'flat', '--vector', '[1]', '--text', 'x'], env);
    expect([both.code, both.stderr]).toEqual([
      1,
      'sluice: search by one of --vector, --vector-file or --text\n',
    ]);
  });

  it('pending generations read in blocks stay exact as merges take part of a block', async () => {
    const name = 'blocks';
    await h.createTable({ ...table(name, []), shards: 1, settings: { maxGenerationsPerMerge: 3 } });
    const random = seededRandom(21);
    const model: Model = new Map();
    // 21 generations: each writes 10 new ids, rewrites 3 older ones and deletes 2.
    for (let g = 0; g < 21; g++) {
      const rewritten = g === 0 ? [] : [0, 1, 2].map(() => Math.floor(random() * g * 10));
      const rows = rowsOf(random, g * 10, g * 10 + 10, (id) => `gen ${g} row ${id}`);
      for (const id of rewritten) rows.push(rowsOf(random, id, id + 1, () => `rewritten in ${g}`)[0]!);
      const unique = [...new Map(rows.map((row) => [row.id, row])).values()];
      await writeRows(h.sluice, name, unique);
      for (const row of unique) model.set(row.id as number, row);
      if (g > 0) {
        const gone = [0, 1].map(() => Math.floor(random() * g * 10));
        await h.sluice.writes.delete(name, gone);
        for (const id of gone) model.delete(id);
      }
      await h.sluice.shards.seal(name, 0);
      await h.sluice.shards.flush(name, 0);
    }
    const exact = async (step: string) => {
      await probe(`${step}, its blocks not built yet`);
      const blocks = await builtBlocks(h, name, h.parts.pendingTables);
      expect(blocks.length, `${step}: blocks read as one table`).toBeGreaterThan(0);
      await probe(`${step}, its blocks built`);
    };
    const probe = async (step: string) => {
      for (let i = 0; i < 3; i++) {
        const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
        const { json } = await search(name, { vector, k: 15, filter: "category != 'c'" });
        const want = bruteForce(model, 'l2', vector, 15, (row) => row.category !== 'c');
        expect([step, json.map((r) => r.id)]).toEqual([step, want]);
      }
      const { rows } = await h.sluice.reads.search(name, { filter: 'id >= 0', k: 1000, columns: ['id'] });
      expect([step, [...rows.getChild('id')!].map(Number).sort((a, b) => a - b)]).toEqual([
        step,
        [...model.keys()].sort((a, b) => a - b),
      ]);
    };
    await exact('all 21 generations pending');
    expect(await builtBlocks(h, name, h.parts.pendingTables)).toContainEqual(
      expect.objectContaining({ key: `${name}/shards/0/generations-16-21@v1` }),
    );
    await h.sluice.tableWork.merge(name);
    await exact('3 merged: the first block partly');
    await h.sluice.tableWork.merge(name);
    await h.sluice.tableWork.merge(name);
    await exact('9 merged: the second block partly');
  });

  /**
   * 10 generations of 60 rows: 20 new ids each, 40 overwritten, 5 deleted; searched with
   * `tables`. With `baseRows`, ids from 10,000 are merged into an indexed base first.
   */
  const fillGenerations = async (name: string, seed: number, tables: PendingTables, baseRows = 0) => {
    await h.createTable({
      ...table(name, [{ column: 'emb', type: 'ivf_hnsw_sq', metric: 'l2' }]),
      shards: 1,
    });
    const random = seededRandom(seed);
    const model: Model = new Map();
    if (baseRows > 0) {
      const base = rowsOf(random, 10_000, 10_000 + baseRows, (id) => `base row ${id}`);
      await flushedGeneration(h.sluice, name, base);
      for (const row of base) model.set(row.id as number, row);
      await h.sluice.tableWork.merge(name);
      await h.sluice.tableWork.optimize(name);
    }
    for (let g = 0; g < 10; g++) {
      const rows = rowsOf(random, g * 20, g * 20 + 20, (id) => `gen ${g} row ${id}`);
      for (let i = 0; i < 40 && g > 0; i++) {
        const id = Math.floor(random() * g * 20);
        rows.push(rowsOf(random, id, id + 1, () => `rewritten in ${g}`)[0]!);
      }
      const unique = [...new Map(rows.map((row) => [row.id, row])).values()];
      await writeRows(h.sluice, name, unique);
      for (const row of unique) model.set(row.id as number, row);
      const gone = Array.from({ length: g > 0 ? 5 : 0 }, () => Math.floor(random() * g * 20));
      if (gone.length > 0) await h.sluice.writes.delete(name, gone);
      for (const id of gone) model.delete(id);
      await h.sluice.shards.seal(name, 0);
      await h.sluice.shards.flush(name, 0);
    }
    const def = await h.sluice.tables.describe(name);
    const declared = await h.parts.indexDeclarations.all(def);
    const searchWith = async (input: SearchInput) => {
      const { rows } = await searchRows(
        { ...h.parts, pendingTables: tables },
        def,
        parseSearch(def, input, declared),
      );
      return tableToJsonRows(def.schema, rows.select(def.schema.fields.map((f) => f.name)));
    };
    return { model, searchWith, random };
  };

  it('a block indexed in the background is searched by its index once built, and answers no superseded or deleted row', async () => {
    const tables = new PendingTables(64 * 1024 * 1024, 100);
    const { model, searchWith, random } = await fillGenerations('pending-index', 31, tables);
    await searchWith({ vector: Array.from({ length: DIM }, () => 0), k: 10 });
    const [block] = await builtBlocks(h, 'pending-index', tables);
    expect(block!.key).toBe('pending-index/shards/0/generations-1-7@v1');
    const snapshot = await readSnapshot(h.parts, await h.sluice.tables.describe('pending-index'), [0]);
    const members = block!.runs.map((r) => ({
      run: snapshot.runs[r]!,
      generation: snapshot.sources[r]!.generation,
    }));
    const held = await tables.of(block!.key, members, await h.sluice.tables.describe('pending-index'));
    try {
      await waitFor(() => held.table!.vectorIndexes.get('emb')?.metric === 'l2', {
        message: 'the block indexed',
      });
      expect((await held.table!.handle.listIndices()).map((i) => i.indexType)).toEqual(['IvfFlat']);
    } finally {
      held.release();
    }
    let found = 0;
    const probes = 20;
    for (let probe = 0; probe < probes; probe++) {
      const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
      const json = await searchWith({ vector, k: 10 });
      for (const row of json) expect(row).toEqual(model.get(row.id as number));
      const truth = new Set(bruteForce(model, 'l2', vector, 10));
      found += json.filter((row) => truth.has(row.id as number)).length;
      // Indexed for l2 only: a cosine search compares every row, and stays exact.
      const cosine = await searchWith({ vector, k: 10, metric: 'cosine' });
      expect(cosine.map((row) => row.id)).toEqual(bruteForce(model, 'cosine', vector, 10));
    }
    expect(found / (probes * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('beside an indexed base, a built block is searched by its graph when no filter asks for more; superseded and deleted rows still never answer', async () => {
    const tables = new PendingTables(64 * 1024 * 1024, 100);
    const { model, searchWith, random } = await fillGenerations('pending-graph', 37, tables, 400);
    await searchWith({ vector: Array.from({ length: DIM }, () => 0), k: 10 });
    const [closed, newest] = await builtBlocks(h, 'pending-graph', tables);
    expect([closed!.key, newest!.key]).toEqual([
      'pending-graph/shards/0/generations-2-7@v1',
      'pending-graph/shards/0/generations-8-11@v1',
    ]);
    const def = await h.sluice.tables.describe('pending-graph');
    const snapshot = await readSnapshot(h.parts, def, [0]);
    const hold = (block: PendingGroup) =>
      tables.of(
        block.key,
        block.runs.map((r) => ({ run: snapshot.runs[r]!, generation: snapshot.sources[r]!.generation })),
        def,
      );
    const [heldClosed, heldNewest] = [await hold(closed!), await hold(newest!)];
    try {
      await waitFor(() => heldClosed.table!.graphs.get('emb')?.metric === 'l2', {
        message: 'the block graphed',
      });
      // Built again as each generation commits: indexed, never graphed.
      await waitFor(() => heldNewest.table!.vectorIndexes.has('emb'), {
        message: 'the newest block indexed',
      });
      expect([heldNewest.table!.graphs.size, heldNewest.table!.rows]).toEqual([0, null]);
    } finally {
      heldClosed.release();
      heldNewest.release();
    }
    const graphAsks = await counterSince(searchAsks, { side: 'graph' });
    let pendingFound = 0;
    let pendingWanted = 0;
    const probes = 20;
    for (let probe = 0; probe < probes; probe++) {
      const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
      // 400 base rows: an index of 5 partitions, of which nprobes 2 reads a share of 0.4.
      const json = await searchWith({ vector, k: 10, nprobes: 2 });
      for (const row of json) expect(row).toEqual(model.get(row.id as number));
      // The base's own index misses some of its rows at that share; the graph, at this size, none of its.
      const pending = bruteForce(model, 'l2', vector, 10).filter((id) => id < 10_000);
      const answered = new Set(json.map((row) => row.id as number));
      pendingWanted += pending.length;
      pendingFound += pending.filter((id) => answered.has(id)).length;
    }
    expect(pendingWanted).toBeGreaterThan(probes);
    expect(pendingFound).toBe(pendingWanted);
    expect(await graphAsks()).toBeGreaterThanOrEqual(probes);

    // A filter, another metric, or a base probed whole: LanceDB answers, as before.
    const asksBefore = await graphAsks();
    const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
    const keep = (row: JsonRow) => row.category === 'a';
    const filtered = await searchWith({ vector, k: 10, nprobes: 5, filter: "category = 'a'" });
    expect(filtered.map((row) => row.id)).toEqual(bruteForce(model, 'l2', vector, 10, keep));
    const cosine = await searchWith({ vector, k: 10, nprobes: 2, metric: 'cosine' });
    expect(cosine.map((row) => row.id)).toEqual(bruteForce(model, 'cosine', vector, 10));
    await searchWith({ vector, k: 10, nprobes: 5 });
    expect(await graphAsks()).toBe(asksBefore);
  });

  it('a closed block too small for an index still gets a graph, which a search beside an indexed base asks', async () => {
    const tables = new PendingTables(64 * 1024 * 1024);
    const { model, searchWith, random } = await fillGenerations('small-graph', 41, tables, 400);
    await searchWith({ vector: Array.from({ length: DIM }, () => 0), k: 10 });
    const [closed] = await builtBlocks(h, 'small-graph', tables);
    expect(closed!.key).toBe('small-graph/shards/0/generations-2-7@v1');
    const def = await h.sluice.tables.describe('small-graph');
    const snapshot = await readSnapshot(h.parts, def, [0]);
    const held = await tables.of(
      closed!.key,
      closed!.runs.map((r) => ({ run: snapshot.runs[r]!, generation: snapshot.sources[r]!.generation })),
      def,
    );
    try {
      await waitFor(() => held.table!.graphs.get('emb')?.metric === 'l2', { message: 'the block graphed' });
      expect(held.table!.vectorIndexes.size).toBe(0);
    } finally {
      held.release();
    }
    const graphAsks = await counterSince(searchAsks, { side: 'graph' });
    for (let probe = 0; probe < 10; probe++) {
      const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
      const json = await searchWith({ vector, k: 10, nprobes: 2 });
      for (const row of json) expect(row).toEqual(model.get(row.id as number));
      const answered = new Set(json.map((row) => row.id as number));
      const pending = bruteForce(model, 'l2', vector, 10).filter((id) => id < 10_000);
      expect(pending.filter((id) => answered.has(id))).toEqual(pending);
    }
    expect(await graphAsks()).toBeGreaterThanOrEqual(10);
  });

  it('an index declared after create indexes the pending blocks a search asks to be built', async () => {
    await h.createTable({ ...table('late-index', []), shards: 1 });
    const def = await h.sluice.tables.describe('late-index');
    await h.sluice.tables.declareIndex(def, { column: 'emb', type: 'ivf_pq', metric: 'l2' });
    const random = seededRandom(43);
    for (let g = 0; g < 10; g++) {
      await writeRows(
        h.sluice,
        'late-index',
        rowsOf(random, g * 1_500, (g + 1) * 1_500, (id) => `row ${id}`),
      );
      await h.sluice.shards.seal('late-index', 0);
      await h.sluice.shards.flush('late-index', 0);
    }
    await h.sluice.reads.search('late-index', { vector: new Array(DIM).fill(0), k: 10 });
    const tables = h.parts.pendingTables;
    const [block] = await builtBlocks(h, 'late-index', tables);
    expect(block!.runs).toHaveLength(7);
    const snapshot = await readSnapshot(h.parts, def, [0]);
    const members = block!.runs.map((r) => ({
      run: snapshot.runs[r]!,
      generation: snapshot.sources[r]!.generation,
    }));
    const held = await tables.of(block!.key, members, def);
    try {
      await waitFor(() => held.table!.vectorIndexes.get('emb')?.metric === 'l2', {
        message: 'the block indexed by the index declared after create',
        timeoutMs: 30_000,
      });
    } finally {
      held.release();
    }
  });

  it('a block bigger than the budget is never built: its generations are searched one by one, exactly', async () => {
    const tables = new PendingTables(40_000, 100);
    const { model, searchWith, random } = await fillGenerations('pending-budget', 37, tables);
    for (let probe = 0; probe < 3; probe++) {
      const vector = Array.from({ length: DIM }, () => Math.fround(random() * 2 - 1));
      const json = await searchWith({ vector, k: 10 });
      expect(json.map((row) => row.id)).toEqual(bruteForce(model, 'l2', vector, 10));
    }
    await sleep(500);
    const budgeted = await h.sluice.tables.describe('pending-budget');
    const snapshot = await readSnapshot(h.parts, budgeted, [0]);
    const plan = pendingGroups(budgeted, snapshot, (key) => tables.isBuilt(key));
    expect(plan.build.map((group) => group.key)).toContain('pending-budget/shards/0/generations-1-7@v1');
    expect(plan.search.filter((group) => group.runs.length > 1 && group.runs.length < 8)).toHaveLength(
      plan.search.filter((group) => group.runs.length > 1).length,
    );
  });
});

/**
 * `npm run bench -- search` (issue 34): search over the base and every pending row against
 * LanceDB's own search of the base alone, in one run. A one-shard table of
 * BENCH_SEARCH_ROWS (1,000,000) rows of 128-dimension vectors (search-vectors.ts: clustered, or
 * BENCH_SEARCH_DATA=uniform) is merged into the
 * base and indexed (a declared `ivf_pq`, l2); then 0, 10 and 100 (BENCH_SEARCH_PENDING) pending L0 generations of
 * 10,000 rows each are added (half of each overwrites base rows, half are new keys). For
 * every count, BENCH_SEARCH_QUERIES (50) vectors drawn as the rows are, k 10, nprobes 40, refineFactor 10, each searched by Sluice
 * (`reads.search`) and by LanceDB on the same Lance version, taking turns query by query:
 * p50/p99 of each, their ratio (goals: ≤ 1.5 with 10 generations, ≤ 2 with 100), and
 * recall@10 of each against the brute-force top 10 of the live rows (LanceDB misses the
 * pending rows: its recall is what a search of the base alone gives). Before a case's
 * queries, one search asks for the pending tables and indexes it wants and the bench waits
 * until the background has built them (`backgroundSeconds`): the steady state of a reader
 * that searches while generations arrive, with budgets that hold them all
 * (BENCH_SEARCH_CACHE_BYTES, 4 GiB, for both the pending tables and the read cache, whose
 * 256 MiB default holds half of 100 generations of 10,000 rows of 128 dimensions, so every
 * search read the rest again).
 * The plain scan, with no pending generation and with the most: every row through Sluice's
 * scan (pages of 10,000 rows, Arrow) against LanceDB's scan of the same version, rows/s and
 * their ratio (goal ≥ 0.5).
 * Workers are not started: the bench seals, flushes, merges and optimizes itself, so nothing
 * moves under a case.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Field,
  FixedSizeList,
  Float32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { ensureRedis } from '../../infra/local/redis.ts';
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { lanceDb, queryRows } from '../../shared/base/lance-module.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger, silentLogger } from '../../shared/log.ts';
import { type ReadSnapshot, readSnapshot } from '../../shared/read/read-snapshot.ts';
import { type PendingGroup, pendingGroups, runGroup } from '../../shared/search/pending-groups.ts';
import { INDEX_ROWS } from '../../shared/search/pending-tables.ts';
import { FsStore } from '../../shared/store/fs-store.ts';
import { seededRandom } from '../support/random.ts';
import { deletePrefix } from '../support/redis.ts';
import { benchDir } from './bench-dirs.ts';
import { type BenchResult, progress } from './measure.ts';
import { type VectorData, vectorDataOf, vectorSource } from './search-vectors.ts';

const ROWS = Number(process.env.BENCH_SEARCH_ROWS) || 1_000_000;
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES) || 50;
const CACHE_BYTES = Number(process.env.BENCH_SEARCH_CACHE_BYTES) || 4 * 1024 ** 3;
const DIM = 128;
const BATCH_ROWS = 10_000;
const GENERATION_ROWS = 10_000;
/** The pending generation counts measured, in increasing order: BENCH_SEARCH_PENDING, as `0,10,100`. */
const PENDING = (process.env.BENCH_SEARCH_PENDING ?? '0,10,100').split(',').map(Number);
if (!PENDING.every((n, i) => Number.isInteger(n) && n >= (PENDING[i - 1] ?? 0))) {
  throw new Error(
    `BENCH_SEARCH_PENDING takes increasing whole numbers, as 0,10,100, not "${process.env.BENCH_SEARCH_PENDING}"`,
  );
}
const K = 10;
const SCAN_PAGE = 10_000;
/** Both systems search the index alike: IVF partitions probed, and exact re-ranking of refine × k candidates. */
const NPROBES = 40;
const REFINE = 10;
const TABLE = 'vectors';
const GOALS: Record<number, number | null> = { 0: null, 10: 1.5, 100: 2 };

/** Every live row's vector, by id, for the brute force. */
class Vectors {
  private readonly values: Float32Array[] = [];

  set(id: number, vector: Float32Array): void {
    this.values[id] = vector;
  }

  nearest(query: Float32Array, k: number): Set<number> {
    const best: Array<{ id: number; d: number }> = [];
    this.values.forEach((v, id) => {
      let d = 0;
      for (let i = 0; i < DIM; i++) d += (v[i]! - query[i]!) ** 2;
      if (best.length < k || d < best[best.length - 1]!.d) {
        best.push({ id, d });
        best.sort((a, b) => a.d - b.d);
        if (best.length > k) best.pop();
      }
    });
    return new Set(best.map((b) => b.id));
  }
}

const schema = new Schema([
  new Field('id', new Int64(), false),
  new Field('category', new Utf8(), false),
  new Field('emb', new FixedSizeList(DIM, new Field('item', new Float32(), true)), false),
]);

function batchOf(ids: number[], draw: () => Float32Array, vectors: Vectors): RecordBatch {
  const values = new Float32Array(ids.length * DIM);
  for (let i = 0; i < ids.length; i++) values.set(draw(), i * DIM);
  for (const [i, id] of ids.entries()) vectors.set(id, values.subarray(i * DIM, (i + 1) * DIM));
  const child = makeData({ type: new Float32(), length: values.length, data: values });
  const emb = makeData({ type: schema.fields[2]!.type as FixedSizeList, length: ids.length, child });
  const idData = vectorFromArray(BigInt64Array.from(ids, BigInt)).data[0]!;
  const category = vectorFromArray(
    ids.map((id) => ['a', 'b', 'c'][id % 3]!),
    new Utf8(),
  ).data[0]!;
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: ids.length, children: [idData, category, emb] }),
  );
}

async function flushAll(runtime: Runtime): Promise<void> {
  await runtime.sluice.shards.seal(TABLE, 0);
  await runtime.sluice.shards.flush(TABLE, 0);
}

const percentile = (list: number[], q: number) =>
  Math.round([...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))]! * 100) /
  100;

export async function* run(): AsyncIterable<BenchResult> {
  const dir = await benchDir('search');
  const redis = await ensureRedis(process.env.SLUICE_REDIS_URL ?? 'redis://127.0.0.1:6379', silentLogger);
  const config = loadConfig(
    {},
    {
      redisUrl: redis.url,
      redisPrefix: `sluice-bench-search-${process.pid}`,
      storeUrl: `file://${dir}`,
      logLevel: 'silent',
      limits: { searchCacheBytes: CACHE_BYTES, readCacheBytes: CACHE_BYTES },
    },
  );
  const runtime = openRuntime(config, createLogger({ level: 'silent' }), new FsStore(dir));
  const random = seededRandom(34);
  const data = vectorDataOf(process.env.BENCH_SEARCH_DATA);
  const draw = vectorSource(data, DIM, ROWS, random);
  const vectors = new Vectors();
  try {
    await runtime.sluice.tables.create({
      name: TABLE,
      schema: {
        fields: [
          { name: 'id', type: 'int64' },
          { name: 'category', type: 'utf8' },
          { name: 'emb', type: `vector[float32, ${DIM}]` },
        ],
      },
      primaryKey: ['id'],
      shards: 1,
      indexes: [{ column: 'emb', type: 'ivf_pq', metric: 'l2' }],
    });
    progress(`search: loading ${ROWS} rows of ${DIM} dimensions into the base`);
    for (let from = 0; from < ROWS; from += BATCH_ROWS) {
      const ids = Array.from({ length: Math.min(BATCH_ROWS, ROWS - from) }, (_, i) => from + i);
      await runtime.sluice.writes.append(TABLE, batchOf(ids, draw, vectors));
      if ((from / BATCH_ROWS) % 10 === 9) await flushAll(runtime);
    }
    await flushAll(runtime);
    while ((await runtime.sluice.tableWork.merge(TABLE)).merged.length > 0);
    progress('search: optimizing (builds the ivf_pq index)');
    await runtime.sluice.tableWork.optimize(TABLE);
    let nextId = ROWS;
    let pending = 0;
    for (const target of PENDING) {
      while (pending < target) {
        const ids = Array.from({ length: GENERATION_ROWS }, (_, i) =>
          i % 2 === 0 ? Math.floor(random() * ROWS) : nextId++,
        );
        await runtime.sluice.writes.append(TABLE, batchOf([...new Set(ids)], draw, vectors));
        await flushAll(runtime);
        pending++;
      }
      yield await searchCase(runtime, dir, vectors, draw, data, pending);
      if (pending === 0 || pending === PENDING.at(-1)) yield await scanCase(runtime, dir, pending);
    }
  } finally {
    await runtime.close();
    await deletePrefix(redis.url, config.redisPrefix);
    await redis.stop();
  }
}

async function openBase(runtime: Runtime, dir: string) {
  const { lanceVersion } = await runtime.parts.bases.read(TABLE);
  const lance = await (await lanceDb().connect(join(dir, 'tables', TABLE))).openTable('base');
  await lance.checkout(lanceVersion!);
  return lance;
}

async function searchCase(
  runtime: Runtime,
  dir: string,
  vectors: Vectors,
  draw: () => Float32Array,
  data: VectorData,
  pending: number,
): Promise<BenchResult> {
  const backgroundSeconds = await pendingTablesBuilt(runtime);
  progress(`search: ${QUERIES} queries with ${pending} pending generations`);
  const lance = await openBase(runtime, dir);
  const times = { sluice: [] as number[], lancedb: [] as number[] };
  const found = { sluice: 0, lancedb: 0 };
  for (let q = 0; q < QUERIES; q++) {
    const query = draw();
    const truth = vectors.nearest(query, K);
    const sluice = async () => {
      const { rows } = await runtime.sluice.reads.search(TABLE, {
        vector: [...query],
        k: K,
        columns: ['id'],
        nprobes: NPROBES,
        refineFactor: REFINE,
      });
      return [...rows.getChild('id')!].map(Number);
    };
    const own = async () => {
      const search = lance.vectorSearch(query).column('emb').nprobes(NPROBES).refineFactor(REFINE);
      const batches = await queryRows(search.select(['id', '_distance']).limit(K));
      return batches.flatMap((b) => [...b.getChild('id')!].map(Number));
    };
    for (const [system, search] of (q % 2 === 0
      ? [
          ['sluice', sluice],
          ['lancedb', own],
        ]
      : [
          ['lancedb', own],
          ['sluice', sluice],
        ]) as Array<['sluice' | 'lancedb', () => Promise<number[]>]>) {
      const t0 = performance.now();
      const ids = await search();
      times[system].push(performance.now() - t0);
      found[system] += ids.filter((id) => truth.has(id)).length;
    }
  }
  lance.close();
  const ratio = Math.round((percentile(times.sluice, 0.5) / percentile(times.lancedb, 0.5)) * 100) / 100;
  return {
    bench: 'search',
    case: `vector-${data}-${ROWS}rows-${pending}pending`,
    system: 'ratio',
    queries: QUERIES,
    pendingRows: pending * GENERATION_ROWS,
    sluiceP50Ms: percentile(times.sluice, 0.5),
    sluiceP99Ms: percentile(times.sluice, 0.99),
    lancedbP50Ms: percentile(times.lancedb, 0.5),
    lancedbP99Ms: percentile(times.lancedb, 0.99),
    ratio,
    goal: GOALS[pending] ?? null,
    backgroundSeconds,
    sluiceRecall: Math.round((found.sluice / (QUERIES * K)) * 1000) / 1000,
    lancedbRecall: Math.round((found.lancedb / (QUERIES * K)) * 1000) / 1000,
  };
}

/** Seconds from a first search until every pending table and index it asked for is built. */
async function pendingTablesBuilt(runtime: Runtime): Promise<number> {
  progress('search: building the pending tables and indexes in the background');
  const t0 = performance.now();
  await runtime.sluice.reads.search(TABLE, { vector: new Array(DIM).fill(0), k: K, columns: ['id'] });
  const def = await runtime.sluice.tables.describe(TABLE);
  const tables = runtime.parts.pendingTables;
  for (;;) {
    const snapshot = await readSnapshot(runtime.parts, def, [0]);
    // The bench's searches ask graphs (asksGraphs): lone generations are wanted as they want them.
    const plan = pendingGroups(
      def,
      snapshot,
      (key) => tables.isBuilt(key),
      (rows) => tables.worthAlone(def, rows, true),
    );
    if (plan.build.length === 0 && (await indexed(runtime, snapshot, plan.search))) break;
    await sleep(100);
  }
  return Math.round((performance.now() - t0) / 100) / 10;
}

/**
 * Whether every built group holds its vector index (from `INDEX_ROWS` rows) and its graph
 * (when it keeps its rows) yet.
 */
async function indexed(runtime: Runtime, snapshot: ReadSnapshot, groups: PendingGroup[]): Promise<boolean> {
  const def = await runtime.sluice.tables.describe(TABLE);
  for (const group of groups) {
    const rows = group.runs.reduce((sum, r) => sum + snapshot.runs[r]!.size, 0);
    // A run read on its own (no built group covers it) gets neither.
    if (group.key === runGroup(def, snapshot, group.runs[0]!).key) continue;
    const members = group.runs.map((r) => ({
      run: snapshot.runs[r]!,
      generation: snapshot.sources[r]!.generation,
    }));
    const held = await runtime.parts.pendingTables.of(group.key, members, def);
    // A block that keeps its rows is one that gets graphs.
    const table = held.table;
    const done =
      table === null ||
      ((rows < INDEX_ROWS || table.vectorIndexes.has('emb')) &&
        (table.rows === null || table.graphs.has('emb')));
    held.release();
    if (!done) return false;
  }
  return true;
}

async function scanCase(runtime: Runtime, dir: string, pending: number): Promise<BenchResult> {
  progress(`search: the plain scan with ${pending} pending generations, Sluice against LanceDB`);
  const lance = await openBase(runtime, dir);
  const t0 = performance.now();
  const own = (await queryRows(lance.query())).reduce((sum, b) => sum + b.numRows, 0);
  const lancedbSeconds = (performance.now() - t0) / 1000;
  lance.close();
  const t1 = performance.now();
  let rows = 0;
  let after: string | null = null;
  do {
    const page = await runtime.sluice.reads.scan(TABLE, { limit: SCAN_PAGE, after });
    rows += page.rows.numRows;
    after = page.next;
  } while (after);
  const sluiceSeconds = (performance.now() - t1) / 1000;
  return {
    bench: 'search',
    case: `scan-${rows}rows-${pending}pending`,
    system: 'ratio',
    sluiceRowsPerSec: Math.round(rows / sluiceSeconds),
    lancedbRowsPerSec: Math.round(own / lancedbSeconds),
    ratio: Math.round((rows / sluiceSeconds / (own / lancedbSeconds)) * 100) / 100,
    goal: 0.5,
  };
}

/**
 * A graph index (HNSW, by usearch) over the vectors of one pending table, a block or a lone
 * generation (docs/design.md, "Search", step 2): a query visits a few hundred vectors where
 * an IVF_FLAT index compares every vector of the partitions it probes, and answers in native
 * code without a LanceDB query's fixed cost. Keys are the table's row positions, so the rows
 * it finds are read there by position.
 * Inserting into the graph is synchronous native work, seconds for a block of 80,000 rows: on
 * the event loop it would stall every request the process serves. So it is built in a worker
 * thread, which saves it to a temporary file that this thread loads (a native index cannot
 * cross threads) and deletes. Searching it stays here: well under a millisecond.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Metric } from '../table/index-decl.ts';

// The CommonJS build: the ES module one finds its native binary from a stack trace, which a
// bundle breaks. Resolved on first use: the bundled functions find it installed beside them.
const require = createRequire(import.meta.url);
type Usearch = typeof import('usearch');
const usearchPath = () => require.resolve('usearch');

/** Links per node, candidates kept while inserting, and while searching (at least the rows asked for). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 32;
const EXPANSION_SEARCH = 64;

/**
 * Lance's distance for each metric, as usearch names it: squared L2, 1 − cosine similarity,
 * 1 − dot product (test/unit/search/vector-graph.test.ts holds them equal to Lance's).
 */
const METRICS: Record<Metric, string> = { l2: 'l2sq', cosine: 'cos', dot: 'ip' };

/** What a graph of `rows` vectors of `dim` holds in memory, about: the vectors, their key and their links. */
export function graphBytes(rows: number, dim: number): number {
  return rows * (4 * dim + 8 + 2 * CONNECTIVITY * 4);
}

export interface GraphVectors {
  dim: number;
  /** Row-major, `keys.length` × `dim`. */
  values: Float32Array;
  /** The row id of each vector. */
  keys: BigUint64Array;
}

export interface GraphMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

export class VectorGraph {
  private constructor(
    private readonly index: InstanceType<Usearch['Index']>,
    readonly metric: Metric,
    /** What it holds in memory, about: the vectors and their links. */
    readonly bytes: number,
  ) {}

  /** Builds the graph of `vectors` in a worker thread; `vectors`' buffers are handed over to it. */
  static async build(vectors: GraphVectors, metric: Metric): Promise<VectorGraph> {
    const { Index } = require(usearchPath()) as Usearch;
    const path = join(tmpdir(), `sluice-graph-${randomUUID()}.usearch`);
    try {
      await inWorker(vectors, metric, path);
      const index = new Index(options(vectors.dim, metric));
      index.load(path);
      return new VectorGraph(index, metric, graphBytes(vectors.keys.length, vectors.dim));
    } finally {
      await rm(path, { force: true });
    }
  }

  /** The `limit` nearest vectors to `vector`, nearest first (fewer when the graph holds fewer). */
  search(vector: Float32Array, limit: number): GraphMatches {
    const { keys, distances } = this.index.search(vector, limit, 1) as GraphMatches;
    return { keys, distances };
  }
}

function options(dim: number, metric: Metric) {
  return {
    dimensions: dim,
    metric: METRICS[metric],
    quantization: 'f32',
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: EXPANSION_SEARCH,
    multi: false,
  } as unknown as ConstructorParameters<Usearch['Index']>[0];
}

/**
 * The worker's whole program, as source: the bundled functions have no file beside them to
 * start a worker from, and it needs nothing but usearch, which it loads by the path this
 * thread resolved.
 */
const BUILD_IN_WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { Index } = require(workerData.usearch);
const index = new Index(workerData.options);
index.add(workerData.keys, workerData.values);
index.save(workerData.path);
parentPort.postMessage('saved');
`;

function inWorker(vectors: GraphVectors, metric: Metric, path: string): Promise<void> {
  const workerData = {
    usearch: usearchPath(),
    options: options(vectors.dim, metric),
    keys: vectors.keys,
    values: vectors.values,
    path,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(BUILD_IN_WORKER, {
      eval: true,
      workerData,
      transferList: [vectors.keys.buffer as ArrayBuffer, vectors.values.buffer as ArrayBuffer],
    });
    let saved = false;
    worker.once('message', () => {
      saved = true;
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      saved ? resolve() : reject(new Error(`the graph's worker stopped (exit ${code}) before saving it`)),
    );
  });
}

/**
 * The vectors of the search bench. `clustered` (the default): a mixture of Gaussian clusters
 * of about 100 rows each (BENCH_SEARCH_CLUSTERS sets their number), each centre uniform in
 * [-1, 1]^dim and each vector its centre plus noise of standard deviation 0.3 per dimension,
 * so a vector's nearest neighbours are mostly in its own cluster, as the embeddings of real
 * data sit near the others of their kind. `uniform` (BENCH_SEARCH_DATA=uniform): every
 * coordinate uniform in [-1, 1], where distances concentrate and no index finds neighbours by
 * probing a few partitions. The base's IVF_PQ (8 sub-vectors of 16 dimensions, refine factor
 * 10) answered recall@10 0.20–0.23 on uniform vectors at 200,000 rows, and on clusters of
 * 1,000 rows 0.24 at 1,000,000: its codes cannot tell apart the rows of one cluster, and
 * re-ranking 100 candidates reaches a tenth of them. Queries are drawn as the rows are.
 */
export type VectorData = 'clustered' | 'uniform';

const NOISE = 0.3;

export function vectorSource(
  data: VectorData,
  dim: number,
  rows: number,
  random: () => number,
): () => Float32Array {
  if (data === 'uniform') return () => Float32Array.from({ length: dim }, () => random() * 2 - 1);
  const clusters = Number(process.env.BENCH_SEARCH_CLUSTERS) || Math.max(1, Math.round(rows / 100));
  const centres = Array.from({ length: clusters }, () =>
    Float32Array.from({ length: dim }, () => random() * 2 - 1),
  );
  return () => {
    const centre = centres[Math.floor(random() * clusters)]!;
    return Float32Array.from(centre, (c) => c + NOISE * gaussian(random));
  };
}

export function vectorDataOf(env: string | undefined): VectorData {
  if (env === undefined || env === '' || env === 'clustered') return 'clustered';
  if (env === 'uniform') return 'uniform';
  throw new Error(`BENCH_SEARCH_DATA is "clustered" or "uniform", not "${env}"`);
}

/** A standard normal draw (Box–Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * How many IVF partitions a pending block's index probes (docs/design.md, "Search"). A
 * query's `nprobes` is chosen against the base's index: it probes that share of the base's
 * partitions, and every pending block indexed for the same metric probes the same share of
 * its own, so `nprobes` trades recall for time alike on both sides. A base searched flat (no
 * index built on it, or none for the query's metric) makes every pending block compare every
 * row too, so a flat search stays exact.
 */

/** What LanceDB probes when a query does not say. */
export const LANCE_DEFAULT_NPROBES = 20;

/** The share of its partitions the base's index probes: 1 when the base compares every row. */
export function probedShare(basePartitions: number | null, nprobes: number | null): number {
  if (basePartitions === null) return 1;
  return Math.min(1, (nprobes ?? LANCE_DEFAULT_NPROBES) / basePartitions);
}

/** The partitions a pending index of `partitions` probes at `share`: at least one. */
export function pendingProbes(share: number, partitions: number): number {
  return Math.max(1, Math.min(partitions, Math.ceil(share * partitions)));
}

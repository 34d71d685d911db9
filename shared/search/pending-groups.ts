/**
 * Which pending runs a search reads as one table in memory (pending-tables.ts), and which
 * bigger tables it asks to be built in the background. Each LanceDB query costs
 * milliseconds whatever its size, so fewer, bigger tables answer faster; but building one
 * costs seconds, so a search never waits for a group: it reads the biggest group already
 * built and each generation no built group covers as a table of its own, as it reads each
 * WAL entry. A shard's pending generations are the committed ones above the merge watermark,
 * one contiguous range (I3), and L0 files are immutable, so a range of generations names its
 * rows exactly and is its table's cache key. The ranges built, as an LSM tiers its runs:
 * every block of `TIER_GENERATIONS[0]` (8) generations, closed or, for the newest, as far as
 * it is committed, from the lowest pending one (a single generation too, when the search
 * says it is worth it — when it would ask its graph, or its rows are enough for an index:
 * built in the background, it gets the index and the graph that a table built on a search's
 * path never waits for); and every block of each bigger tier once all
 * its generations are committed and pending (one taken in part by a merge would be rebuilt at
 * every merge; its smaller blocks cover it meanwhile). A range is graphed (vector-graph.ts)
 * when it is a single generation or a closed block, its last generation the block's last,
 * and unless a whole block of the next tier covers it: the newest block is built again as
 * each generation commits, and a graph of it costs seconds each time where the table and
 * its IVF_FLAT cost a fraction of that; a single generation is built once.
 */
import type { ReadSnapshot } from '../read/read-snapshot.ts';
import type { TableDef } from '../table/table-def.ts';

/**
 * The cache key of a pending table of `table`'s rows named `key`: the runs read under one
 * schema version carry its columns, so a table built under another is another table.
 */
export function cacheKeyOf(table: TableDef, key: string): string {
  return `${key}@v${table.schema.version}`;
}

/** Generations a block of each tier spans, each tier's blocks aligned on its size. */
export const TIER_GENERATIONS = [8, 32] as const;

export interface PendingGroup {
  /** Names exactly the group's rows: its table's cache key. */
  key: string;
  /** The snapshot's runs it holds, by index. */
  runs: number[];
}

/** A group to build, and whether it gets graphs. */
export interface BuildGroup extends PendingGroup {
  graphed: boolean;
}

export interface PendingPlan {
  /** Every pending run exactly once, in the groups a search reads now. */
  search: PendingGroup[];
  /** The groups worth building that are not built yet, smallest tier first. */
  build: BuildGroup[];
}

/** `worthAlone`: whether a single generation of so many rows is worth a table of its own. */
export function pendingGroups(
  table: TableDef,
  snapshot: ReadSnapshot,
  isBuilt: (key: string) => boolean,
  worthAlone: (rows: number) => boolean = () => false,
): PendingPlan {
  const plan: PendingPlan = { search: [], build: [] };
  const shards = new Map<number, Map<number, number>>();
  snapshot.sources.forEach(({ shard, generation }, r) => {
    if (generation === null) plan.search.push(runGroup(table, snapshot, r));
    else shards.set(shard, (shards.get(shard) ?? new Map<number, number>()).set(generation, r));
  });
  for (const [shard, runOf] of shards) {
    const block = (from: number, to: number): PendingGroup => ({
      key: cacheKeyOf(table, `${table.name}/shards/${shard}/generations-${from}-${to}`),
      runs: Array.from({ length: to - from + 1 }, (_, i) => runOf.get(from + i)!),
    });
    const lowest = Math.min(...runOf.keys());
    const newest = Math.max(...runOf.keys());
    const wanted = wantedRanges(lowest, newest, (g) => worthAlone(snapshot.runs[runOf.get(g)!]!.size));
    plan.build.push(
      ...wanted
        .filter(([from, to]) => !isBuilt(block(from, to).key))
        .map(([from, to, graphed]) => ({ ...block(from, to), graphed })),
    );
    for (let from = lowest; from <= newest; ) {
      const to = builtEnd(from, newest, wanted, (to) => isBuilt(block(from, to).key));
      // A generation no built group covers is read as its own run, as a WAL entry is.
      plan.search.push(to === null ? runGroup(table, snapshot, runOf.get(from)!) : block(from, to));
      from = (to ?? from) + 1;
    }
  }
  return plan;
}

/** Run `r` of the snapshot read as a table of its own, keyed by its object. */
export function runGroup(table: TableDef, snapshot: ReadSnapshot, r: number): PendingGroup {
  return { key: cacheKeyOf(table, snapshot.sources[r]!.key), runs: [r] };
}

/**
 * The ranges of generations worth a table of their own, from `lowest` to `newest` pending,
 * and whether each is graphed; a single generation only when it is `worthAlone`.
 */
function wantedRanges(
  lowest: number,
  newest: number,
  worthAlone: (generation: number) => boolean,
): Array<[number, number, boolean]> {
  const ranges: Array<[number, number, boolean]> = [];
  for (const [tier, size] of TIER_GENERATIONS.entries()) {
    for (let start = lowest - (lowest % size); start <= newest; start += size) {
      const from = Math.max(lowest, start);
      const to = Math.min(newest, start + size - 1);
      const closed = to === start + size - 1;
      const whole = start >= lowest && closed;
      const worth = to > from || (tier === 0 && worthAlone(from));
      if (worth && (tier === 0 || whole)) ranges.push([from, to, closed || to === from]);
    }
  }
  // A range inside a whole block of a bigger tier leaves the graph to that one.
  return ranges.map(([from, to, graphed], i) => [
    from,
    to,
    graphed && !ranges.some(([f, t], j) => j !== i && f <= from && to <= t && t - f > to - from),
  ]);
}

/**
 * The end of the biggest built group from `from`: a wanted range, or a smaller block's
 * prefix built while it was the newest; null when none is built.
 */
function builtEnd(
  from: number,
  newest: number,
  wanted: ReadonlyArray<readonly [number, number, boolean]>,
  built: (to: number) => boolean,
): number | null {
  const size = TIER_GENERATIONS[0];
  const blockEnd = Math.min(newest, from - (from % size) + size - 1);
  const ends = new Set(wanted.filter(([f]) => f === from).map(([, to]) => to));
  for (let to = from; to <= blockEnd; to++) ends.add(to);
  const builtEnds = [...ends].filter(built);
  return builtEnds.length === 0 ? null : Math.max(...builtEnds);
}

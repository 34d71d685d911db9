/**
 * Merge (DESIGN.md §3.4): committed L0 generations go into the base table as one new
 * sorted run, and the shards' watermarks advance — in one base-manifest commit. Only L0
 * files are read and one run is written, so a merge costs what it merges, whatever the
 * size of the base (I14). Reading the inputs takes no lock: writes, flushes and reads go
 * on meanwhile, and only the commit is a compare-and-swap.
 */
import { randomUUID } from 'node:crypto';
import { type Table, tableFromIPC } from 'apache-arrow';
import { keyCodecFor } from '../arrow/key-codec.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { baseDataKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { walSchema } from '../wal/wal-entry.ts';
import type { OnWorkProgress } from '../work/work-progress.ts';
import { progressOf } from '../work/work-progress.ts';
import { type BaseManifest, type BaseManifestStore, type BaseRun, mergedThrough } from './base-manifest.ts';
import { commitMerge, type MergedRange } from './base-transitions.ts';
import { buildRunFile } from './run-file.ts';
import type { CommittedGeneration, ShardManifest, ShardManifestStore } from './shard-manifest.ts';

export interface MergeDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  bases: BaseManifestStore;
}

/** What counts as real progress for the no-progress watchdog (I16). */
export type Progress = 'read' | 'write' | 'commit';

export interface MergeOptions {
  signal?: AbortSignal;
  onProgress?(kind: Progress): void;
  /** Rows and bytes of the merge's inputs read so far, of all it takes. */
  onWorkProgress?: OnWorkProgress;
}

export interface MergeOutcome {
  merged: MergedRange[];
  run: BaseRun | null;
}

export interface MergePlan {
  ranges: MergedRange[];
  inputs: Array<{ shard: number; generation: CommittedGeneration }>;
}

/** Committed generations not yet in the base, per shard, oldest first; poisoned shards are left as they are. */
export function unmergedGenerations(base: BaseManifest, shards: ShardManifest[]) {
  return shards
    .filter((m) => !m.poison)
    .map((m) => ({
      shard: m.shard,
      pending: m.committed.filter((c) => c.generation > mergedThrough(base, m.shard)),
    }));
}

/**
 * Picks at most `maxGenerationsPerMerge` generations and about `maxBytesPerMerge`, oldest
 * commit first across shards; per shard always a contiguous range right after its
 * watermark. At least one generation is taken when any is pending.
 */
export function planMerge(table: TableDef, base: BaseManifest, shards: ShardManifest[]): MergePlan {
  const queues = unmergedGenerations(base, shards).filter((q) => q.pending.length > 0);
  const taken = new Map<number, CommittedGeneration[]>();
  let bytes = 0;
  let count = 0;
  for (;;) {
    const next = queues
      .map((q) => ({ shard: q.shard, generation: q.pending[taken.get(q.shard)?.length ?? 0] }))
      .filter((c): c is { shard: number; generation: CommittedGeneration } => c.generation !== undefined)
      .sort((a, b) => a.generation.committedAt.localeCompare(b.generation.committedAt))[0];
    if (!next || count >= table.settings.maxGenerationsPerMerge) break;
    if (count > 0 && bytes + next.generation.bytes > table.settings.maxBytesPerMerge) break;
    taken.set(next.shard, [...(taken.get(next.shard) ?? []), next.generation]);
    bytes += next.generation.bytes;
    count++;
  }
  const ranges = [...taken].map(([shard, gens]) => ({
    shard,
    from: gens[0]!.generation,
    to: gens.at(-1)!.generation,
  }));
  const inputs = [...taken].flatMap(([shard, gens]) => gens.map((generation) => ({ shard, generation })));
  return { ranges: ranges.sort((a, b) => a.shard - b.shard), inputs };
}

const MAX_PLANS = 4;

export async function runMerge(
  deps: MergeDeps,
  table: TableDef,
  options: MergeOptions = {},
): Promise<MergeOutcome> {
  for (let attempt = 0; attempt < MAX_PLANS; attempt++) {
    const base = await deps.bases.read(table.name, options.signal);
    const shards = await Promise.all(
      Array.from({ length: table.shards }, (_, shard) =>
        deps.manifests.read(table.name, shard, options.signal),
      ),
    );
    const plan = planMerge(table, base, shards);
    if (plan.inputs.length === 0) return { merged: [], run: null };
    options.onWorkProgress?.(
      progressOf(
        plan.inputs.map((i) => i.generation),
        0,
      ),
    );
    const inputs = await readGenerations(deps.store, plan, options);
    // Everything older than the merged generations is in the base; with no base run, a delete hides nothing.
    const built = buildRunFile(keyCodecFor(table.schema), walSchema(table.schema), inputs, {
      dropDeletes: base.runs.length === 0,
    });
    const run = await writeRun(deps.store, table.name, built, options);
    try {
      const { changed } = await deps.bases.update(
        table.name,
        (current) => commitMerge(current, plan.ranges, run),
        options.signal,
      );
      options.onProgress?.('commit');
      // Unchanged: a concurrent run of the same merge committed these generations first.
      return changed ? { merged: plan.ranges, run } : { merged: [], run: null };
    } catch (err) {
      if (!isSluiceError(err, 'FENCED')) throw err;
    }
  }
  throw new SluiceError('STORE_CONFLICT', 'merge kept finding the base moved', { table: table.name });
}

async function readGenerations(store: ObjectStore, plan: MergePlan, options: MergeOptions): Promise<Table[]> {
  const tables: Table[] = [];
  const generations = plan.inputs.map((i) => i.generation);
  for (const { shard, generation } of plan.inputs) {
    const object = await store.get(generation.path, { signal: options.signal });
    if (!object) {
      throw new SluiceError('DATA_MISSING', `L0 file of generation ${generation.generation} is missing`, {
        shard,
        generation: generation.generation,
        path: generation.path,
      });
    }
    tables.push(tableFromIPC(object.body));
    options.onProgress?.('read');
    options.onWorkProgress?.(progressOf(generations, tables.length));
  }
  return tables;
}

/** Writes a run file under a fresh id; one that is never committed is garbage for the GC. */
export async function writeRun(
  store: ObjectStore,
  table: string,
  built: ReturnType<typeof buildRunFile>,
  options: MergeOptions,
): Promise<BaseRun> {
  const id = randomUUID();
  const path = baseDataKey(table, id);
  await store.putIfAbsent(path, built.body, { signal: options.signal });
  options.onProgress?.('write');
  return {
    id,
    path,
    rows: built.rows,
    bytes: built.body.byteLength,
    tombstones: built.tombstones,
    minKey: built.minKey ? Buffer.from(built.minKey).toString('hex') : null,
    maxKey: built.maxKey ? Buffer.from(built.maxKey).toString('hex') : null,
    createdAt: new Date().toISOString(),
  };
}

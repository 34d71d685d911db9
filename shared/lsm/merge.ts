/**
 * Merge: committed L0 generations go into the base table's Lance dataset (deleted keys
 * removed, the newest row per key upserted), and the shards' watermarks advance with the
 * Lance version in one base-manifest commit. Only L0 files are read, and the delete and
 * the upsert find existing keys through the key index, so a merge costs what it merges
 * (I14). Reading the inputs takes no lock: writes, flushes and reads go on
 * meanwhile, and only the manifest commit is a compare-and-swap.
 */
import { type RecordBatch, type Schema, Table, tableFromIPC } from 'apache-arrow';
import { conformColumns } from '../arrow/conform-columns.ts';
import { keyAt, keyCodecFor } from '../arrow/key-codec.ts';
import { toArrowSchema } from '../arrow/schema.ts';
import { selectColumns } from '../arrow/select-columns.ts';
import { takeRows } from '../arrow/take.ts';
import type { BaseDatasets } from '../base/base-datasets.ts';
import type { LanceCommit } from '../base/lance-commits.ts';
import { type BaseChange, commitChange, prepareBase } from '../base/merge-commit.ts';
import { evolveBase } from '../base/schema-commit.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import { cutoffOf } from '../read/retention-cutoff.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { isAppendOnly, schemaAt, type TableDef } from '../table/table-def.ts';
import { OP_DELETE, schemaVersionOf, walSchema } from '../wal/wal-entry.ts';
import { type OnWorkProgress, progressOf } from '../work/work-progress.ts';
import { type Backlog, backlogOf } from './backlog.ts';
import {
  type BaseManifest,
  type BaseManifestStore,
  baseSchemaVersion,
  expiredBefore,
  mergedThrough,
} from './base-manifest.ts';
import { commitMerge, type MergedRange } from './base-transitions.ts';
import { lastWritePerKey } from './last-write-per-key.ts';
import { expiredRows } from './retention.ts';
import { opsOf } from './run-file.ts';
import {
  type CommittedGeneration,
  committedAbove,
  type ShardManifest,
  type ShardManifestStore,
} from './shard-manifest.ts';

export interface MergeDeps {
  store: ObjectStore;
  manifests: ShardManifestStore;
  bases: BaseManifestStore;
  datasets: BaseDatasets;
  /** Milliseconds since the epoch: a merge drops rows past retention by it. */
  clock: () => number;
}

/** What counts as real progress for the no-progress watchdog (I16). */
export type Progress = 'read' | 'write' | 'commit';

/** The steps between which a merge may die; each is a point the crash tests stop at. */
export type MergeStep = 'prepared' | 'lance-committed' | 'retention-deleted';

export interface MergeOptions {
  signal?: AbortSignal;
  onProgress?(kind: Progress): void;
  /** Rows and bytes of the merge's inputs read so far, of all it takes. */
  onWorkProgress?: OnWorkProgress;
  onStep?(step: MergeStep): Promise<void> | void;
}

export interface MergeOutcome {
  merged: MergedRange[];
  /** Rows of the generations merged (every write, before the newest per key is taken). */
  rows: number;
  /** What the merge left pending on the shards it may merge: it was planned with everything up to its bounds. */
  left: Backlog;
  /** The Lance version recorded by this merge, or null when it recorded none. */
  lanceVersion: number | null;
  /** Unrecorded commits on the base that may have changed rows or the schema, undone before merging. */
  rolledBack: LanceCommit[];
}

export interface MergePlan {
  ranges: MergedRange[];
  inputs: Array<{ shard: number; generation: CommittedGeneration }>;
  /** The committed generations the plan did not take. */
  left: Backlog;
}

/** Committed generations not yet in the base, per shard, oldest first; poisoned shards are left as they are. */
export function unmergedGenerations(base: BaseManifest, shards: ShardManifest[]) {
  return shards
    .filter((m) => !m.poison)
    .map((m) => ({
      shard: m.shard,
      pending: committedAbove(m, mergedThrough(base, m.shard)),
    }));
}

/**
 * Picks generations oldest commit first across shards, up to `maxGenerationsPerMerge`,
 * `maxRowsPerMerge` and `maxBytesPerMerge`; per shard always a contiguous range right after
 * its watermark. At least one generation is taken when any is pending.
 */
export function planMerge(table: TableDef, base: BaseManifest, shards: ShardManifest[]): MergePlan {
  const { maxGenerationsPerMerge, maxRowsPerMerge, maxBytesPerMerge } = table.settings;
  const queues = unmergedGenerations(base, shards).filter((q) => q.pending.length > 0);
  const taken = new Map<number, CommittedGeneration[]>();
  let bytes = 0;
  let rows = 0;
  let count = 0;
  for (;;) {
    const next = queues
      .map((q) => ({ shard: q.shard, generation: q.pending[taken.get(q.shard)?.length ?? 0] }))
      .filter((c): c is { shard: number; generation: CommittedGeneration } => c.generation !== undefined)
      .sort((a, b) => a.generation.committedAt.localeCompare(b.generation.committedAt))[0];
    if (!next || count >= maxGenerationsPerMerge) break;
    const { generation } = next;
    if (
      count > 0 &&
      (bytes + generation.bytes > maxBytesPerMerge || rows + generation.rows > maxRowsPerMerge)
    ) {
      break;
    }
    taken.set(next.shard, [...(taken.get(next.shard) ?? []), generation]);
    bytes += generation.bytes;
    rows += generation.rows;
    count++;
  }
  const left = backlogOf(queues.flatMap((q) => q.pending.slice(taken.get(q.shard)?.length ?? 0)));
  const ranges = [...taken].map(([shard, gens]) => ({
    shard,
    from: gens[0]!.generation,
    to: gens.at(-1)!.generation,
  }));
  const inputs = [...taken].flatMap(([shard, gens]) => gens.map((generation) => ({ shard, generation })));
  return { ranges: ranges.sort((a, b) => a.shard - b.shard), inputs, left };
}

const MAX_PLANS = 4;

export async function runMerge(
  deps: MergeDeps,
  table: TableDef,
  options: MergeOptions = {},
): Promise<MergeOutcome> {
  const rolledBack: LanceCommit[] = [];
  for (let attempt = 0; attempt < MAX_PLANS; attempt++) {
    const base = await deps.bases.read(table.name, options.signal);
    const shards = await Promise.all(
      Array.from({ length: table.shards }, (_, shard) =>
        deps.manifests.read(table.name, shard, options.signal),
      ),
    );
    const plan = planMerge(table, base, shards);
    const rows = plan.inputs.reduce((sum, i) => sum + i.generation.rows, 0);
    const nothing = { merged: [], rows: 0, left: plan.left, lanceVersion: null, rolledBack };
    // A base of a newer schema than this definition would take rows short of its columns.
    schemaAt(table, baseSchemaVersion(base));
    const evolves = baseSchemaVersion(base) < table.schema.version;
    if (plan.inputs.length === 0 && !evolves) return nothing;
    options.onWorkProgress?.(
      progressOf(
        plan.inputs.map((i) => i.generation),
        0,
      ),
    );
    const cutoff = cutoffOf(table, deps.clock(), expiredBefore(base));
    const change = changeOf(table, await readGenerations(deps.store, plan, options), cutoff);
    const prepared = await prepareBase(deps.datasets, table, base.lanceVersion);
    rolledBack.push(...prepared.rolledBack);
    await options.onStep?.('prepared');
    // New rows may carry columns the base does not have yet: it gets them first.
    const evolved = evolves ? await evolveBase(table, prepared) : null;
    const on = evolved ? { ...prepared, on: evolved.version } : prepared;
    const committed = await commitChange(table, on, change);
    options.onProgress?.('write');
    await options.onStep?.('lance-committed');
    if ((evolved && !evolved.clean) || (committed && !committed.clean)) {
      // Another commit landed in between, so this one may sit on a zombie's: it is never
      // recorded, and the latest version goes back to the recorded content at once.
      await prepareBase(
        deps.datasets,
        table,
        (await deps.bases.read(table.name, options.signal)).lanceVersion,
      );
      continue;
    }
    const lanceVersion = committed?.version ?? on.on;
    try {
      const { changed } = await deps.bases.update(
        table.name,
        (current) => commitMerge(current, base.lanceVersion, plan.ranges, lanceVersion, table.schema.version),
        options.signal,
      );
      options.onProgress?.('commit');
      // Unchanged: a concurrent run of the same merge recorded these generations first.
      return changed ? { merged: plan.ranges, rows, left: plan.left, lanceVersion, rolledBack } : nothing;
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

/** An append-only table's rows, all of them in order, less those past retention. */
function appended(schema: Schema, batches: readonly RecordBatch[], expired: (i: number) => boolean): Table {
  const total = batches.reduce((sum, b) => sum + b.numRows, 0);
  const live = Int32Array.from({ length: total }, (_, i) => i).filter((i) => !expired(i));
  if (live.length === total)
    return new Table(
      schema,
      batches.map((b) => selectColumns(schema, b)),
    );
  return live.length === 0
    ? new Table(schema)
    : new Table([selectColumns(schema, takeRows([...batches], live))]);
}

/**
 * The newest write per key across `inputs` (oldest first), split into upserts and deletes;
 * a newest upsert below the retention `cutoff` is a delete, so no older base row outlives it;
 * on an append-only table every row inside retention, to add.
 */
export function changeOf(table: TableDef, inputs: Table[], cutoff: number | null = null): BaseChange {
  // An input of a newer schema than this definition stops the merge until it is read again.
  for (const input of inputs) schemaAt(table, schemaVersionOf(input));
  const codec = keyCodecFor(table.schema);
  const wal = walSchema(table.schema);
  const batches: RecordBatch[] = inputs.flatMap((t) => t.batches).map((b) => conformColumns(wal, b));
  const schema = toArrowSchema(table.schema);
  const expired = expiredRows(table, batches, cutoff);
  if (isAppendOnly(table)) return { upserts: appended(schema, batches, expired), deletes: [] };
  const keys = codec.encodeRowsPacked(batches);
  const ops = opsOf(batches);
  const newest = lastWritePerKey(keys);
  const kept = newest.filter((i) => ops[i] !== OP_DELETE && !expired(i));
  // Every row a distinct key and none deleted (a bulk load of new keys): the rows as they are,
  // in any order, are the upserts, and gathering them would only copy them.
  const everyRow = kept.length === ops.length;
  return {
    upserts: everyRow
      ? new Table(
          schema,
          batches.map((b) => selectColumns(schema, b)),
        )
      : kept.length > 0
        ? new Table([selectColumns(schema, takeRows(batches, kept))])
        : new Table(schema),
    deletes: Array.from(
      newest.filter((i) => ops[i] === OP_DELETE || expired(i)),
      (i) => codec.decode(keyAt(keys, i)),
    ),
  };
}

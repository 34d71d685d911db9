/**
 * Flush to L0 (docs/design.md, "Flush"): for the lowest sealed generation, read its WAL range, write
 * the L0 file at the path of (shard, generation), then commit it. Generations are taken
 * strictly lowest first and each commit is refused unless it is the manifest's current
 * generation (I3), so a failing generation holds back every later one (I5). While one
 * generation's file is put and committed, the WAL range of the next one sealed is read
 * ahead; it is built and written only in its own turn.
 */

import type { Logger } from '../log.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SealCounters } from '../redis/seal-counters.ts';
import { assertShardOpen } from '../shard-poison.ts';
import { generationKey } from '../table/paths.ts';
import { schemaAt, type TableDef } from '../table/table-def.ts';
import { schemaVersionOf, walSchema } from '../wal/wal-entry.ts';
import { type OnWorkProgress, progressOf } from '../work/work-progress.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { type GenerationReads, readGenerationRows } from './generation-rows.ts';
import { commitGeneration, isCommitted } from './manifest-transitions.ts';
import { buildRunFile, type RunFile } from './run-file.ts';
import { runKeyingFor, type WalRows } from './run-keys.ts';
import type { SealedGeneration, ShardManifest, ShardManifestStore } from './shard-manifest.ts';

export interface FlushDeps extends GenerationReads {
  manifests: ShardManifestStore;
  poisonCache: PoisonCache;
  sealCounters: SealCounters;
  laneSealCounters: LaneSealCounters;
  laneAllocation: LaneAllocation;
  scheduler: WorkScheduler;
  log: Logger;
}

export interface FlushOptions {
  signal?: AbortSignal;
  /** Told which generation is being flushed, before any work on it starts. */
  onGeneration?(generation: number): void;
  /** WAL rows and bytes flushed so far, of all that were sealed when this call reached them. */
  onWorkProgress?: OnWorkProgress;
  /** Told each generation found committed once its flush ended: by this call, or meanwhile by another run. */
  onCommitted?(generation: number): void;
}

/** Flushes every sealed generation of the shard, lowest first; returns the generations this call committed. */
export async function flushShard(
  deps: FlushDeps,
  table: TableDef,
  shard: number,
  options: FlushOptions = {},
): Promise<number[]> {
  const committed: number[] = [];
  const flushed: Array<{ rows: number; bytes: number }> = [];
  // A read ahead that is still running when this call ends, however it ends, stops.
  const ended = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, ended.signal]) : ended.signal;
  const run: ShardFlush = { deps, table, shard, signal };
  let ahead: ReadAhead | null = guessAhead(run);
  try {
    // Read once: each turn after the first goes on from the version its commit left, which a
    // seal that lands later follows with a flush request of its own (I12's follow-up).
    let manifest = await deps.manifests.read(table.name, shard, signal);
    for (;;) {
      await assertShardOpen(deps.poisonCache, manifest);
      const next = manifest.sealed[0];
      const pending = manifest.sealed.map((g) => ({ rows: g.walRows, bytes: g.walBytes }));
      options.onWorkProgress?.(progressOf([...flushed, ...pending], flushed.length));
      if (!next) return committed;
      options.onGeneration?.(next.generation);
      const following = manifest.sealed[1];
      const turn: Turn = {
        readAhead: takeIfCovers(ahead, next),
        readNext: () => {
          ahead = following ? readAheadOf(run, following) : null;
        },
      };
      ahead = null;
      try {
        const done = await flushGeneration(run, manifest, next, turn);
        if (done.changed) committed.push(next.generation);
        manifest = done.manifest;
      } catch (err) {
        const meanwhile = await committedMeanwhile(deps, table.name, shard, next.generation, signal);
        if (!meanwhile) throw err;
        manifest = meanwhile;
      }
      flushed.push({ rows: next.walRows, bytes: next.walBytes });
      options.onCommitted?.(next.generation);
    }
  } finally {
    ended.abort();
  }
}

/** One flush call: its shard, and the signal that ends its reads ahead with it. */
interface ShardFlush {
  deps: FlushDeps;
  table: TableDef;
  shard: number;
  signal: AbortSignal;
}

/** A sealed generation's WAL range, read while the generation before it is put and committed. */
interface ReadAhead {
  generation: SealedGeneration;
  /** Null when the read failed: the generation reads its range again in its own turn. */
  tables: Promise<WalRows[] | null>;
  /** Stops the reads of a read ahead that its generation's turn does not take. */
  drop(): void;
}

/** What one generation's flush takes over from the turn before, and starts for the next. */
interface Turn {
  /** Let go once taken, so its tables are not held while the next range is read. */
  readAhead: ReadAhead | null;
  /** Starts reading the next sealed generation's range, once this one's file is built. */
  readNext(): void;
}

function readAheadOf(run: ShardFlush, generation: SealedGeneration): ReadAhead {
  const { deps, table, shard, signal } = run;
  const dropped = new AbortController();
  const both = AbortSignal.any([signal, dropped.signal]);
  const reading = readGenerationRows(deps, table, shard, generation, both).catch((err: unknown) => {
    if (!both.aborted) {
      deps.log.warn(
        { err, table: table.name, shard, generation: generation.generation },
        'reading ahead a sealed WAL range failed; its flush reads it again',
      );
    }
    return null;
  });
  return { generation, tables: reading, drop: () => dropped.abort() };
}

/**
 * The lowest sealed generation of the manifest this process saw last (a seal it just
 * committed, most often), read ahead beside the manifest's read: its turn takes it only if
 * the fresh manifest seals that generation over the same range (`takeIfCovers`), so the
 * guess decides nothing, and on S3 the range's GETs no longer wait for the manifest's.
 */
function guessAhead(run: ShardFlush): ReadAhead | null {
  const known = run.deps.manifests.known(run.table.name, run.shard);
  const first = known?.sealed[0];
  return first ? readAheadOf(run, first) : null;
}

/**
 * `ahead` if it read `generation`, which the fresh manifest seals next; else it is dropped.
 * It can miss only when another run committed its generation meanwhile (I11); the range
 * is compared too, so that a read ahead is taken only for exactly the entries it read.
 */
function takeIfCovers(ahead: ReadAhead | null, generation: SealedGeneration): ReadAhead | null {
  const read = ahead?.generation;
  const covers =
    read?.generation === generation.generation &&
    read.walFrom === generation.walFrom &&
    read.walTo === generation.walTo &&
    read.members === generation.members;
  if (!covers) ahead?.drop();
  return covers ? ahead : null;
}

/** Writes and commits one generation: the manifest after it, and false when its commit was already there. */
async function flushGeneration(
  run: ShardFlush,
  read: ShardManifest,
  generation: SealedGeneration,
  turn: Turn,
): Promise<{ manifest: ShardManifest; changed: boolean }> {
  const { deps, table, shard, signal } = run;
  const { artifact, current } = await writeGeneration(run, generation, turn);
  // I7: the manifest refuses a commit after a durable poison; one held only in Redis (the
  // store refused it) is checked again here, after the slow part of the flush.
  await assertShardOpen(deps.poisonCache, read);
  const { manifest, changed } = await deps.manifests.update(
    table.name,
    shard,
    (m) => commitGeneration(m, generation.generation, artifact),
    signal,
    { from: current },
  );
  await afterCommit(deps, table, manifest);
  return { manifest, changed };
}

/**
 * Tells the shard's lane how many generations still wait (I18). In a table lane a seal that
 * found generations waiting could not move the cursor past other shards' entries
 * (`advanceSealed`); once none wait, a seal is asked for if the lane handed out a seq past
 * the sealed range, so an idle shard's cursor does not hold the lane's GC
 * (docs/table-wal-lane.md, §4 step 6).
 */
async function afterCommit(deps: FlushDeps, table: TableDef, manifest: ShardManifest): Promise<void> {
  const { sealed, shard, version } = manifest;
  if (table.walLane !== 'table') {
    await deps.sealCounters.setSealedCount(table.name, shard, sealed.length, version);
    return;
  }
  await deps.laneSealCounters.setSealedCount(table.name, shard, sealed.length, version);
  if (sealed.length > 0) return;
  const allocated = await deps.laneAllocation.allocatedThrough(table.name);
  if (allocated !== null && allocated > manifest.sealedThrough) {
    await deps.scheduler.requestSeal(table.name, shard, { delayMs: table.settings.sealDelayMs });
  }
}

/**
 * I11: every failure of a flush is first checked against a fresh manifest. A run that read
 * the manifest, stalled, and woke after a redelivered run committed the generation and GC
 * removed its WAL range fails on data it no longer needs: that is a no-op, never a poison.
 * The fresh manifest when the generation is committed there, else null.
 */
async function committedMeanwhile(
  deps: FlushDeps,
  table: string,
  shard: number,
  generation: number,
  signal?: AbortSignal,
): Promise<ShardManifest | null> {
  const manifest = await deps.manifests.read(table, shard, signal).catch(() => null);
  return manifest !== null && isCommitted(manifest, generation) ? manifest : null;
}

async function writeGeneration(
  run: ShardFlush,
  generation: SealedGeneration,
  turn: Turn,
): Promise<{ artifact: GenerationArtifact; current: ManifestRead }> {
  const { deps, table, shard, signal } = run;
  const built = await buildGeneration(run, generation, turn);
  // The next range's reads wait on the store as this put and the commit do, not on the CPU.
  turn.readNext();
  const path = generationKey(table.name, shard, generation.generation);
  // The commit decides on a read made beside the put rather than after it: a seal that
  // commits meanwhile makes the commit's put fail, and the update reads again.
  const current = { doc: deps.manifests.read(table.name, shard, signal), readAt: Date.now() };
  current.doc.catch(() => undefined);
  await deps.store.put(path, built.body, { signal, background: true });
  return { artifact: { path, rows: built.rows, bytes: built.body.byteLength }, current };
}

interface GenerationArtifact {
  path: string;
  rows: number;
  bytes: number;
}

/** A read of the shard manifest under way, and when it began. */
interface ManifestRead {
  doc: Promise<ShardManifest>;
  readAt: number;
}

/**
 * The generation's L0 file, from its range as read ahead or as read now. Its own frame, so
 * that the rows it read are not held while the file is put and the next range is read.
 */
async function buildGeneration(run: ShardFlush, generation: SealedGeneration, turn: Turn): Promise<RunFile> {
  const { deps, table, shard, signal } = run;
  const readAhead = turn.readAhead;
  turn.readAhead = null;
  const tables =
    (await readAhead?.tables) ?? (await readGenerationRows(deps, table, shard, generation, signal));
  // The newest schema among the entries, not the newest this process knows: a re-run after
  // a later change of the columns then writes the same bytes (I13).
  const version = Math.max(1, ...tables.map((e) => schemaVersionOf(e.table)));
  return buildRunFile(runKeyingFor(table, shard), walSchema(schemaAt(table, version)), tables);
}

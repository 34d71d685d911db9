/**
 * Seal (docs/design.md, "Seal"): turns the WAL past the last seal into numbered generations. It
 * finds the frontier, tombstones abandoned seqs, cuts the range into generations of
 * bounded size, commits them as sealed and makes sure a flush is queued.
 */
import pLimit from 'p-limit';
import type { Config } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { InflightMarks } from '../redis/inflight-marks.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SealCounters } from '../redis/seal-counters.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import { assertShardOpen } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import { listWalAfter, missingSeqs, planFrontier, type WalObject } from '../wal/frontier.ts';
import { decodeWalEntry, encodeHole } from '../wal/wal-entry.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { cutGenerations, type SealableEntry } from './generation-cut.ts';
import { sealGenerations } from './manifest-transitions.ts';
import type { SealedGeneration, ShardManifestStore } from './shard-manifest.ts';

export interface SealDeps {
  config: Config;
  store: ObjectStore;
  manifests: ShardManifestStore;
  seqAllocation: SeqAllocation;
  inflightMarks: InflightMarks;
  sealCounters: SealCounters;
  poisonCache: PoisonCache;
  scheduler: WorkScheduler;
}

export interface SealOutcome {
  sealed: SealedGeneration[];
  holes: number[];
  /** Set when an in-flight seq held the frontier back; another seal is queued for then. */
  retryAt: number | null;
}

const MAX_PLANS = 8;
/** Entries whose row count Redis lacks, read at once. */
const ROW_COUNT_READS = 32;
/** The next seal never comes sooner than this after one ended. */
const MIN_NEXT_SEAL_MS = 50;

export async function sealShard(
  deps: SealDeps,
  table: TableDef,
  shard: number,
  signal?: AbortSignal,
): Promise<SealOutcome> {
  try {
    return await sealPlanned(deps, table, shard, signal);
  } catch (err) {
    // Writes that come next arm another seal at once instead of waiting out this one's arm.
    await deps.seqAllocation.disarmSeal(table.name, shard).catch(() => undefined);
    throw err;
  }
}

async function sealPlanned(
  deps: SealDeps,
  table: TableDef,
  shard: number,
  signal?: AbortSignal,
): Promise<SealOutcome> {
  for (let plan = 0; plan < MAX_PLANS; plan++) {
    const readAt = Date.now();
    const listing = listBesideRead(deps, table.name, shard, signal);
    const manifest = await deps.manifests.read(table.name, shard, signal);
    await assertShardOpen(deps.poisonCache, manifest);
    const after = manifest.sealedThrough;
    const listedAt = Date.now();
    const present =
      (await listing)?.filter((entry) => entry.seq > after) ??
      (await listWalAfter(deps.store, table.name, shard, after, signal));
    const inflight = await deps.inflightMarks.since(table.name, shard, missingSeqs(after, present));
    const frontier = planFrontier({
      after,
      present,
      inflightSince: inflight,
      now: Date.now(),
      holeTimeoutMs: deps.config.wal.holeTimeoutMs,
    });
    // I7: a poison raised since the check above stops the seal before its first tombstone.
    if (frontier.holes.length > 0) await assertShardOpen(deps.poisonCache, manifest);
    const holes = await writeHoles(deps.store, table.name, shard, frontier.holes, signal);
    const entries = await sealableEntries(
      deps,
      table.name,
      shard,
      [...present, ...holes.landed],
      frontier.frontier,
    );
    const generations = cutGenerations({
      entries,
      after,
      through: frontier.frontier,
      firstGeneration: manifest.nextGeneration,
      maxBytes: table.settings.maxGenerationBytes,
      maxRows: table.settings.maxGenerationRows,
      sealedAt: new Date().toISOString(),
    });
    // The manifest refuses a durable poison itself; one held only in Redis is checked here.
    await assertShardOpen(deps.poisonCache, manifest);
    // Decided on the manifest read above: should it be the latest no more, the put of its
    // successor fails and the update reads again.
    const { manifest: committed, changed } = await deps.manifests.update(
      table.name,
      shard,
      (m) => sealGenerations(m, generations),
      signal,
      { from: { doc: manifest, readAt } },
    );
    if (!changed && generations.length > 0) continue;
    if (changed) {
      await deps.sealCounters.recordSeal(table.name, shard, {
        bytes: generations.reduce((sum, g) => sum + g.walBytes, 0),
        sealedCount: committed.sealed.length,
        manifestVersion: committed.version,
        seqs: entries.map((e) => e.seq),
      });
    }
    if (committed.sealed.length > 0) await deps.scheduler.requestFlush(table.name, shard);
    await requestNextSeal(deps, table, shard, committed.sealedThrough, listedAt);
    return { sealed: changed ? generations : [], holes: holes.written, retryAt: frontier.retryAt };
  }
  throw new SluiceError('STORE_CONFLICT', 'seal kept losing races', { table: table.name, shard });
}

/**
 * The WAL listed beside the manifest's read, from the sealed seq of the version this process
 * saw last (docs/design.md, "Seal"): `sealedThrough` only grows, so the listing holds every
 * entry past the one the fresh read will name, and the seal filters it to those. Null when
 * this process saw no version lately, whose listing could start far below the sealed range.
 * Its failure is the seal's, once the read has answered.
 */
function listBesideRead(
  deps: SealDeps,
  table: string,
  shard: number,
  signal?: AbortSignal,
): Promise<WalObject[]> | null {
  const known = deps.manifests.known(table, shard);
  if (!known) return null;
  const listing = listWalAfter(deps.store, table, shard, known.sealedThrough, signal);
  listing.catch(() => undefined);
  return listing;
}

/**
 * While something past the sealed range is still to seal, each seal asks for the next: the
 * writers found the seal armed and asked for none (`SeqAllocation.endSeal`). A write that
 * just missed this seal's listing waits the seal delay from that listing, as if it had
 * armed the next seal itself, and no less than a moment after this one; a write still in
 * flight gets it by the time it becomes a hole at the latest.
 */
async function requestNextSeal(
  deps: SealDeps,
  table: TableDef,
  shard: number,
  sealedThrough: number,
  listedAt: number,
) {
  const { sealDelayMs } = table.settings;
  const { holeTimeoutMs } = deps.config.wal;
  const { wanted, oldestLiveSince } = await deps.seqAllocation.endSeal(table.name, shard, sealedThrough, {
    sealDelayMs,
    liveSince: Date.now() - holeTimeoutMs,
  });
  if (!wanted) return;
  const now = Date.now();
  const soon = Math.max(listedAt + sealDelayMs, now + MIN_NEXT_SEAL_MS);
  const at = oldestLiveSince === null ? soon : Math.min(soon, oldestLiveSince + holeTimeoutMs);
  await deps.scheduler.requestSeal(table.name, shard, { delayMs: Math.max(0, at - now) });
}

/**
 * Tombstones each hole with put-if-absent. When the put finds an object, the late writer
 * landed first: its entry is real and belongs in the generation.
 */
async function writeHoles(
  store: ObjectStore,
  table: string,
  shard: number,
  seqs: number[],
  signal?: AbortSignal,
): Promise<{ written: number[]; landed: WalObject[] }> {
  const written: number[] = [];
  const landed: WalObject[] = [];
  for (const seq of seqs) {
    const body = encodeHole(seq);
    try {
      await store.putIfAbsent(walKey(table, shard, seq), body, { signal });
      written.push(seq);
      landed.push({ seq, bytes: body.byteLength });
    } catch (err) {
      if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
      const meta = await store.head(walKey(table, shard, seq), { signal });
      if (meta) landed.push({ seq, bytes: meta.size });
    }
  }
  return { written, landed };
}

/** Entries through `frontier` with their row counts: from Redis, else from the entry itself. */
async function sealableEntries(
  deps: SealDeps,
  table: string,
  shard: number,
  objects: WalObject[],
  frontier: number,
): Promise<SealableEntry[]> {
  const inRange = objects.filter((o) => o.seq <= frontier).sort((a, b) => a.seq - b.seq);
  const known = await deps.sealCounters.walRows(
    table,
    shard,
    inRange.map((o) => o.seq),
  );
  // Side by side: on S3 each read is a request's latency, and the newest entries' completions
  // have often not reached Redis yet when the seal lists them.
  const limit = pLimit(ROW_COUNT_READS);
  return Promise.all(
    inRange.map(async (object) => ({
      seq: object.seq,
      bytes: object.bytes,
      rows: known.get(object.seq) ?? (await limit(() => countRows(deps.store, table, shard, object.seq))),
    })),
  );
}

async function countRows(store: ObjectStore, table: string, shard: number, seq: number): Promise<number> {
  const object = await store.get(walKey(table, shard, seq));
  if (!object) return 0;
  const entry = decodeWalEntry(object.body, seq);
  return entry.kind === 'hole' ? 0 : entry.table.numRows;
}

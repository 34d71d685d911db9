/**
 * Seal (docs/design.md, "Seal"): turns the WAL past the last seal into numbered generations. It
 * finds the frontier, tombstones abandoned seqs, cuts the range into generations of
 * bounded size, commits them as sealed and makes sure a flush is queued.
 */
import type { Config } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { InflightMarks } from '../redis/inflight-marks.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { SealCounters } from '../redis/seal-counters.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import { assertShardOpen } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { missingSeqs, planFrontier, type WalObject } from '../wal/frontier.ts';
import { encodeHole } from '../wal/wal-entry.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { cutGenerations } from './generation-cut.ts';
import { advanceSealed, sealGenerations } from './manifest-transitions.ts';
import { type SealLane, shardSealLane } from './seal-lane.ts';
import type { SealedGeneration, ShardManifestStore } from './shard-manifest.ts';
import { tableSealLane } from './table-seal-lane.ts';

export interface SealDeps {
  config: Config;
  store: ObjectStore;
  manifests: ShardManifestStore;
  seqAllocation: SeqAllocation;
  inflightMarks: InflightMarks;
  sealCounters: SealCounters;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
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
    await sealLaneOf(deps, table, shard)
      .disarmSeal()
      .catch(() => undefined);
    throw err;
  }
}

async function sealPlanned(
  deps: SealDeps,
  table: TableDef,
  shard: number,
  signal?: AbortSignal,
): Promise<SealOutcome> {
  const lane = sealLaneOf(deps, table, shard);
  for (let plan = 0; plan < MAX_PLANS; plan++) {
    const readAt = Date.now();
    const listing = listBesideRead(deps, lane, table.name, shard, signal);
    const manifest = await deps.manifests.read(table.name, shard, signal);
    await assertShardOpen(deps.poisonCache, manifest);
    const after = manifest.sealedThrough;
    const listedAt = Date.now();
    const present =
      (await listing)?.filter((entry) => entry.seq > after) ?? (await lane.listAfter(after, signal));
    const inflight = await lane.inflightSince(missingSeqs(after, present));
    const frontier = planFrontier({
      after,
      present,
      inflightSince: inflight,
      now: Date.now(),
      holeTimeoutMs: deps.config.wal.holeTimeoutMs,
    });
    // I7: a poison raised since the check above stops the seal before its first tombstone.
    if (frontier.holes.length > 0) await assertShardOpen(deps.poisonCache, manifest);
    const holes = await writeHoles(deps.store, lane, frontier.holes, signal);
    const inRange = [...present, ...holes.landed]
      .filter((o) => o.seq <= frontier.frontier)
      .sort((a, b) => a.seq - b.seq);
    const entries = await lane.sealable(inRange, signal);
    const generations = cutGenerations({
      entries,
      after,
      through: frontier.frontier,
      firstGeneration: manifest.nextGeneration,
      maxBytes: table.settings.maxGenerationBytes,
      maxRows: table.settings.maxGenerationRows,
      maxEntries: lane.maxEntries,
      sealedAt: new Date().toISOString(),
    });
    // The manifest refuses a durable poison itself; one held only in Redis is checked here.
    await assertShardOpen(deps.poisonCache, manifest);
    // Decided on the manifest read above: should it be the latest no more, the put of its
    // successor fails and the update reads again.
    const { manifest: committed, changed } = await deps.manifests.update(
      table.name,
      shard,
      (m) => (generations.length > 0 ? sealGenerations(m, generations) : advanceSealed(m, frontier.frontier)),
      signal,
      { from: { doc: manifest, readAt } },
    );
    if (!changed && generations.length > 0) continue;
    if (changed) {
      await lane.recordSeal({
        entries,
        sealedCount: committed.sealed.length,
        manifestVersion: committed.version,
        sealedThrough: committed.sealedThrough,
      });
    }
    if (committed.sealed.length > 0) await deps.scheduler.requestFlush(table.name, shard);
    await requestNextSeal(deps, lane, table, shard, committed.sealedThrough, listedAt);
    // A bounded listing that reached its bound, and a frontier that reached the listing's end,
    // leave more of the lane to seal at once (a seq in flight brings its own next seal).
    if (frontier.retryAt === null && lane.bounded?.(after, present)) {
      await deps.scheduler.requestSeal(table.name, shard, { delayMs: 0 });
    }
    if (changed) await lane.sealOthers?.(committed.sealedThrough);
    return { sealed: changed ? generations : [], holes: holes.written, retryAt: frontier.retryAt };
  }
  throw new SluiceError('STORE_CONFLICT', 'seal kept losing races', { table: table.name, shard });
}

function sealLaneOf(deps: SealDeps, table: TableDef, shard: number): SealLane {
  return table.walLane === 'table'
    ? tableSealLane(deps, table, shard)
    : shardSealLane(deps, table.name, shard);
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
  lane: SealLane,
  table: string,
  shard: number,
  signal?: AbortSignal,
): Promise<WalObject[]> | null {
  const known = deps.manifests.known(table, shard);
  if (!known) return null;
  const listing = lane.listAfter(known.sealedThrough, signal);
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
  lane: SealLane,
  table: TableDef,
  shard: number,
  sealedThrough: number,
  listedAt: number,
) {
  const { sealDelayMs } = table.settings;
  const { holeTimeoutMs } = deps.config.wal;
  const { wanted, oldestLiveSince } = await lane.endSeal(sealedThrough, {
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
 * landed first (or, in a table lane, another shard's seal wrote the hole): it belongs in the
 * range, and the lane says whether it holds rows of this shard.
 */
async function writeHoles(
  store: ObjectStore,
  lane: SealLane,
  seqs: number[],
  signal?: AbortSignal,
): Promise<{ written: number[]; landed: WalObject[] }> {
  const written: number[] = [];
  const landed: WalObject[] = [];
  for (const seq of seqs) {
    const body = encodeHole(seq);
    try {
      await store.putIfAbsent(lane.key(seq), body, { signal });
      written.push(seq);
      landed.push({ seq, bytes: body.byteLength });
    } catch (err) {
      if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
      const meta = await store.head(lane.key(seq), { signal });
      if (meta) landed.push({ seq, bytes: meta.size });
    }
  }
  return { written, landed };
}

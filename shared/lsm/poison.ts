/**
 * I7 and I8: poisoning a shard after a flush that cannot succeed, and reopening it. The
 * poison is recorded in the shard manifest (durable, the truth) and cached in Redis (so a
 * write fails fast without reading the store): in the shard's own keys, which reads check,
 * and in its table lane's hash, which a table lane's allocation checks (docs/table-wal-lane.md,
 * §4 "Poison"). Both copies are set and cleared together whatever the table's lane; a shard
 * lane's table never reads the lane's.
 */
import type { ErrorCode } from '../errors.ts';
import type { LanePoisonCache } from '../redis/lane-poison-cache.ts';
import type { PoisonCache } from '../redis/poison-cache.ts';
import type { PoisonRecord } from '../shard-poison.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { isCommitted, poisonShard, reopenShard as reopenTransition } from './manifest-transitions.ts';
import type { ShardManifest, ShardManifestStore } from './shard-manifest.ts';

export interface PoisonDeps {
  manifests: ShardManifestStore;
  poisonCache: PoisonCache;
  lanePoisonCache: LanePoisonCache;
}

export type PoisonOutcome =
  | {
      poisoned: true;
      record: PoisonRecord;
      /** False when the store refused the manifest commit: the poison then lives in Redis only. */
      durable: boolean;
      error?: unknown;
    }
  /** I11: the failed generation is committed by now (another run of the flush won); the shard stays open. */
  | { poisoned: false; committedBy: number };

export async function poison(
  deps: PoisonDeps,
  target: { table: string; shard: number },
  reason: { code: ErrorCode; generation: number | null; cause: string; jobId?: string },
): Promise<PoisonOutcome> {
  const record: PoisonRecord = { ...reason, at: new Date().toISOString() };
  const seen = await deps.manifests.read(target.table, target.shard).catch(() => null);
  if (seen && reason.generation !== null && isCommitted(seen, reason.generation)) {
    return { poisoned: false, committedBy: seen.version };
  }
  // Redis first: writes must fail fast at once, even while the store refuses the manifest commit.
  await cachePoison(deps, target, record, seen?.version ?? null);
  try {
    const { manifest } = await deps.manifests.update(target.table, target.shard, (m) =>
      poisonShard(m, record),
    );
    await cachePoison(deps, target, manifest.poison, manifest.version);
    if (!manifest.poison) return { poisoned: false, committedBy: manifest.version };
    return { poisoned: true, record: manifest.poison, durable: true };
  } catch (error) {
    return { poisoned: true, record, durable: false, error };
  }
}

/** Clears the poison and asks for the flush of everything sealed from the cursor on. */
export async function reopen(
  deps: PoisonDeps & { scheduler: WorkScheduler },
  target: { table: string; shard: number },
): Promise<ShardManifest> {
  const manifest = await clearManifestPoison(deps, target);
  await cachePoison(deps, target, null, manifest.version);
  await deps.scheduler.requestFlush(target.table, target.shard);
  await deps.scheduler.requestSeal(target.table, target.shard, { delayMs: 0 });
  return manifest;
}

/**
 * A poison that only reached Redis (the store refused the manifest commit) is cleared there,
 * after a commit of its own: that moves the manifest past the version a sweep making the
 * poison durable commits onto (see `persistCachedPoison`), so the reopen wins the race.
 */
async function clearManifestPoison(
  deps: PoisonDeps,
  target: { table: string; shard: number },
): Promise<ShardManifest> {
  const cached = await deps.poisonCache.cachedPoison(target.table, target.shard);
  const { manifest } = await deps.manifests.update(target.table, target.shard, (m) =>
    !m.poison && cached ? { ...m } : reopenTransition(m),
  );
  return manifest;
}

/**
 * I7: a poison the store refused at first is made durable by the next reconcile, so a Redis
 * restarted empty cannot silently reopen the shard. It is committed only onto the manifest
 * version it was seen beside: a reopen in between commits a version of its own and wins.
 * Returns the shard's poison, durable or still only cached, or null when it is open.
 */
export async function persistCachedPoison(
  deps: PoisonDeps,
  seen: ShardManifest,
): Promise<PoisonRecord | null> {
  if (seen.poison) return seen.poison;
  const cached = await deps.poisonCache.cachedPoison(seen.table, seen.shard);
  if (!cached) return null;
  try {
    const { manifest } = await deps.manifests.update(seen.table, seen.shard, (m) =>
      m.version === seen.version ? poisonShard(m, cached) : null,
    );
    if (manifest.poison) await cachePoison(deps, seen, manifest.poison, manifest.version);
    return manifest.poison ?? cached;
  } catch {
    // The store still refuses: the poison stays in Redis and the next sweep tries again.
    return cached;
  }
}

/**
 * Both Redis copies of the shard's poison state. The shard's own copy is set first and
 * cleared last: it is the one `persistCachedPoison` and a reopen consult, so a process that
 * dies between the two leaves a poison they still find, never one held by the lane alone.
 */
async function cachePoison(
  deps: PoisonDeps,
  target: { table: string; shard: number },
  poison: PoisonRecord | null,
  manifestVersion: number | null,
): Promise<void> {
  const { table, shard } = target;
  const copies = [deps.poisonCache, deps.lanePoisonCache];
  for (const copy of poison ? copies : copies.reverse()) {
    await copy.cachePoison(table, shard, poison, manifestVersion);
  }
}

/**
 * The chaos run's fault schedule, a pure function of the seed: what happens to which
 * process when, and the store fault episodes every process's store follows
 * (shared/store/fault-plan.ts). The same seed gives the same schedule.
 */
import type { FaultEpisode } from '../../shared/store/fault-plan.ts';
import { baseDatasetKey, generationPrefix, walPrefix } from '../../shared/table/paths.ts';
import { prefixGlob } from '../support/key-globs.ts';
import { seededRandom } from '../support/random.ts';

export const WORKERS = ['worker-1', 'worker-2'] as const;
export const PROCESSES = ['api', ...WORKERS] as const;
export type ProcessName = (typeof PROCESSES)[number];
export type WorkerName = (typeof WORKERS)[number];

export const FAULT_KINDS = [
  'kill',
  'stop',
  'killOptimizer',
  'stopOptimizer',
  'redisRestart',
  'storeLatency',
  'storeFail',
  'storeLostAck',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type ProcessFault =
  /** kill -9, then a new process of the same role after `restartAfterMs`. */
  | { kind: 'kill'; atMs: number; target: ProcessName; restartAfterMs: number }
  /** SIGSTOP for `forMs` (past the job lock, so its jobs are redelivered), then SIGCONT. */
  | { kind: 'stop'; atMs: number; target: WorkerName; forMs: number }
  /**
   * The same, to the worker that next starts an optimize (within a few seconds; none, and
   * nothing happens), so its merges are redelivered beside the optimize it left behind.
   */
  | { kind: 'killOptimizer'; atMs: number; restartAfterMs: number }
  | { kind: 'stopOptimizer'; atMs: number; forMs: number }
  /** kill -9 of redis-server and a new, empty one on the same port. */
  | { kind: 'redisRestart'; atMs: number };

export interface ScheduleTiming {
  /** No fault before this, from the start of the run: the processes are still starting. */
  leadMs: number;
  /** Faults start and end within this window after the lead. */
  windowMs: number;
  /** A stopped worker stays stopped at least this long: its lock duration plus a stalled-check interval. */
  minStopMs: number;
}

export interface ChaosSchedule {
  seed: number;
  processFaults: ProcessFault[];
  storeEpisodes: FaultEpisode[];
}

const KEYS = {
  wal: `${prefixGlob(walPrefix, '*', '*')}*`,
  l0: `${prefixGlob(generationPrefix, '*', '*')}*`,
  manifest: 'tables/*/**/_manifest/*',
} as const;

/** The base's own objects: Lance's data, deletion, index, transaction and version files. */
const BASE_KEYS = `${prefixGlob((table) => baseDatasetKey(table, ''), '*', '*')}**`;
const BASE_VERSIONS = `${prefixGlob((table) => baseDatasetKey(table, '_versions/'), '*', '*')}*`;

const WRITES = ['put', 'putIfAbsent', 'putIfMatch'] as const;

export function chaosSchedule(seed: number, timing: ScheduleTiming): ChaosSchedule {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

  const end = timing.leadMs + timing.windowMs;
  const processFaults: ProcessFault[] = [];
  for (let at = timing.leadMs + between(500, 2_000); at < end; at += between(1_500, 4_500)) {
    const roll = random();
    if (roll < 0.5) {
      const restartAfterMs = between(100, 1_500);
      if (at + restartAfterMs < end)
        processFaults.push({ kind: 'kill', atMs: at, target: pick(PROCESSES), restartAfterMs });
    } else if (roll < 0.75) {
      const forMs = between(timing.minStopMs + 500, timing.minStopMs + 4_000);
      if (at + forMs < end) processFaults.push({ kind: 'stop', atMs: at, target: pick(WORKERS), forMs });
    } else {
      processFaults.push({ kind: 'redisRestart', atMs: at });
    }
  }

  const storeEpisodes: FaultEpisode[] = [];
  for (let at = timing.leadMs + between(200, 1_000); at < end; at += between(500, 2_000)) {
    const key = KEYS[pick(['wal', 'l0', 'manifest'] as const)];
    const roll = random();
    const episode: FaultEpisode =
      roll < 0.4
        ? { atMs: at, forMs: between(300, 1_500), key, latencyMs: between(200, 1_500) }
        : roll < 0.7
          ? { atMs: at, forMs: between(100, 600), key, fault: 'fail' }
          : {
              atMs: at,
              forMs: between(1_000, 3_000),
              key,
              op: [...WRITES],
              fault: 'lostAck',
              times: between(1, 3),
            };
    if (at + episode.forMs < end) storeEpisodes.push(episode);
  }
  storeEpisodes.push(...baseEpisodes(seededRandom(seed ^ 0x5eed), timing));
  processFaults.push(...optimizerFaults(seededRandom(seed ^ 0x0b7), timing));
  processFaults.sort((a, b) => a.atMs - b.atMs);
  return { seed, processFaults, storeEpisodes };
}

/**
 * Stops and kills of whichever worker is optimizing, taking turns from a stop, drawn from
 * a stream of their own so that the other faults of a seed stay as they were.
 */
function optimizerFaults(random: () => number, timing: ScheduleTiming): ProcessFault[] {
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const end = timing.leadMs + timing.windowMs;
  const faults: ProcessFault[] = [];
  let stop = true;
  for (let at = timing.leadMs + between(500, 1_500); at < end; at += between(3_000, 5_000), stop = !stop) {
    const lasts = stop ? between(timing.minStopMs + 500, timing.minStopMs + 2_000) : between(100, 1_500);
    if (at + lasts >= end) continue;
    faults.push(
      stop
        ? { kind: 'stopOptimizer', atMs: at, forMs: lasts }
        : { kind: 'killOptimizer', atMs: at, restartAfterMs: lasts },
    );
  }
  return faults;
}

/**
 * Episodes on the base's own objects, drawn from a stream of their own so that the other
 * faults of a seed stay as they were. On S3 Lance meets them; on a file store only
 * Sluice's own reads of the base's commit files do.
 */
function baseEpisodes(random: () => number, timing: ScheduleTiming): FaultEpisode[] {
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const end = timing.leadMs + timing.windowMs;
  // Lance commits a version on every merge: the answers to the first two are lost for sure.
  const episodes: FaultEpisode[] = [
    {
      atMs: timing.leadMs,
      forMs: timing.windowMs - 1,
      key: BASE_VERSIONS,
      op: 'putIfAbsent',
      fault: 'lostAck',
      times: 2,
    },
  ];
  for (let at = timing.leadMs + between(500, 2_000); at < end; at += between(1_500, 4_000)) {
    const roll = random();
    const episode: FaultEpisode =
      roll < 0.4
        ? { atMs: at, forMs: between(300, 1_500), key: BASE_KEYS, latencyMs: between(100, 800) }
        : roll < 0.7
          ? { atMs: at, forMs: between(100, 500), key: BASE_KEYS, fault: 'fail' }
          : {
              atMs: at,
              forMs: between(1_000, 3_000),
              key: BASE_KEYS,
              op: [...WRITES],
              fault: 'lostAck',
              times: 1,
            };
    if (at + episode.forMs < end) episodes.push(episode);
  }
  return episodes;
}

export function storeFaultKind(episode: FaultEpisode): FaultKind {
  if (episode.fault === 'fail') return 'storeFail';
  return episode.fault === 'lostAck' ? 'storeLostAck' : 'storeLatency';
}

export function faultCounts(schedule: ChaosSchedule): Record<FaultKind, number> {
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  for (const fault of schedule.processFaults) counts[fault.kind] += 1;
  for (const episode of schedule.storeEpisodes) counts[storeFaultKind(episode)] += 1;
  return counts;
}

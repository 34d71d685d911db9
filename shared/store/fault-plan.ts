/**
 * A fault schedule for a whole process (`SLUICE_STORE_FAULT_PLAN`, the path of a JSON
 * file): episodes that each apply one FaultyStore rule from `startedAt + atMs` for `forMs`.
 * A harness that spawns several processes hands them all the same plan, so one seed decides
 * what every process's store suffers, including a process restarted halfway through (it
 * joins the episodes still to come). Off unless set, and refused for an S3 store: injected
 * faults belong on a test machine's file store, never on a deployment's data.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SluiceError } from '../errors.ts';
import { FaultyStore, STORE_OPS, type StoreOp } from './faulty-store.ts';
import type { ObjectStore } from './object-store.ts';

const StoreOpSchema = z.enum(STORE_OPS as [StoreOp, ...StoreOp[]]);

const EpisodeSchema = z
  .object({
    atMs: z.number().min(0),
    forMs: z.number().positive(),
    op: z.union([StoreOpSchema, z.array(StoreOpSchema).min(1)]).optional(),
    /** A glob over the whole key, as FaultyStore reads it. */
    key: z.string().min(1).optional(),
    fault: z.enum(['fail', 'lostAck']).optional(),
    latencyMs: z.number().min(0).optional(),
    /** Fire on at most this many calls in this process during the episode. */
    times: z.number().int().positive().optional(),
  })
  .strict()
  .refine((episode) => episode.fault !== undefined || (episode.latencyMs ?? 0) > 0, {
    message: 'an episode needs a fault or a latency',
  });

const FaultPlanSchema = z
  .object({
    /** Wall-clock ms (Date.now()) that every episode's `atMs` counts from. */
    startedAt: z.number().int().nonnegative(),
    episodes: z.array(EpisodeSchema),
  })
  .strict();

export type FaultPlan = z.infer<typeof FaultPlanSchema>;
export type FaultEpisode = z.infer<typeof EpisodeSchema>;

/** `store` wrapped so that it suffers the plan in the file at `planPath`, from now on. */
export function withFaultPlan(store: ObjectStore, planPath: string): FaultyStore {
  if (!store.url.startsWith('file://')) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_STORE_FAULT_PLAN injects store faults for test runs on a file store; unset it for ${store.url}`,
      { storeUrl: store.url },
    );
  }
  const faulty = new FaultyStore(store);
  followFaultPlan(faulty, readFaultPlan(planPath));
  return faulty;
}

export function readFaultPlan(path: string): FaultPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_STORE_FAULT_PLAN: cannot read a JSON fault plan at ${path}: ${(err as Error).message}`,
      { path },
      { cause: err },
    );
  }
  const parsed = FaultPlanSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `SLUICE_STORE_FAULT_PLAN: ${path} is not a fault plan: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}`,
      { path },
    );
  }
  return parsed.data;
}

/**
 * Injects each episode still to come (or under way) when its time comes and removes it
 * when it ends. The timers never keep the process alive.
 */
export function followFaultPlan(store: FaultyStore, plan: FaultPlan, now: number = Date.now()): void {
  for (const episode of plan.episodes) {
    const startsIn = plan.startedAt + episode.atMs - now;
    const endsIn = startsIn + episode.forMs;
    if (endsIn <= 0) continue;
    setTimeout(
      () => {
        const { atMs: _at, forMs: _for, ...rule } = episode;
        const handle = store.inject(rule);
        setTimeout(() => handle.remove(), endsIn - Math.max(startsIn, 0)).unref();
      },
      Math.max(startsIn, 0),
    ).unref();
  }
}

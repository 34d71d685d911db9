/**
 * The bounded chaos run of `npm test`: a fixed list of seeds, short fault windows, one on a
 * file store and one on the S3 test server. Between them they kill the API and both
 * workers (the one optimizing too), stop a worker past its lock, restart Redis empty and
 * inject every kind of store fault, on S3 into Lance's own objects too. `npm run chaos`
 * runs the long version.
 */
import { describe, expect, it } from 'vitest';
import { runChaos, scheduleOf } from './run-chaos.ts';
import { FAULT_KINDS, faultCounts, PROCESSES } from './schedule.ts';

/** One seed on each kind of store: on the S3 test server the faults reach Lance too. */
const CI_RUNS = [
  { seed: 48, store: 'fs' },
  { seed: 98, store: 's3' },
] as const;
const CI_SEEDS = CI_RUNS.map((run) => run.seed);
const CI_SECONDS = 10;
const SETTLE_SECONDS = 15;

describe('chaos run (seeded, bounded)', () => {
  it('the CI seeds between them inject every fault kind and kill every process role', () => {
    const schedules = CI_SEEDS.map((seed) => scheduleOf(seed, CI_SECONDS));
    for (const schedule of schedules) {
      expect(
        FAULT_KINDS.filter((kind) => faultCounts(schedule)[kind] === 0),
        `seed ${schedule.seed}`,
      ).toEqual([]);
    }
    const killed = new Set(
      schedules.flatMap((s) => s.processFaults.flatMap((f) => (f.kind === 'kill' ? [f.target] : []))),
    );
    expect([...killed].sort()).toEqual([...PROCESSES].sort());
  });

  it('gives the same schedule for the same seed, and another for another seed', () => {
    expect(scheduleOf(48, CI_SECONDS)).toEqual(scheduleOf(48, CI_SECONDS));
    expect(scheduleOf(48, CI_SECONDS)).not.toEqual(scheduleOf(98, CI_SECONDS));
  });

  it.each(CI_RUNS)(
    'seed $seed on $store: every read during the run and at the end consistent with the writes (appends and a schema change included), the base exact in LanceDB, all flushed and merged, nothing poisoned',
    async ({ seed, store }) => {
      const { summary, problems } = await runChaos({
        seed,
        store,
        seconds: CI_SECONDS,
        clients: 3,
        settleSeconds: SETTLE_SECONDS,
        progress: () => {},
      });
      expect(problems).toEqual([]);
      expect(summary).toMatchObject({ violations: 0, crashed: 0, readViolations: 0, baseViolations: 0 });
      expect(summary.acked).toBeGreaterThan(0);
      expect(summary.readsChecked).toBeGreaterThan(0);
      expect(summary.baseRowsChecked).toBeGreaterThan(0);
      expect(summary.keyShapes).toEqual(['utf8', 'int64', 'composite']);
      expect(summary.appends).toBeGreaterThan(0);
      expect(summary.appendRowsChecked).toBeGreaterThan(0);
      expect(summary.schemaChangedAtMs).toBeGreaterThan(0);
      if (store === 's3') expect(summary.lanceFaults).toBeGreaterThan(0);
    },
    120_000,
  );
});

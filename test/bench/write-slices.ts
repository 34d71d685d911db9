/**
 * Side by side in time: the systems of one write-bench case take turns, each writing for a
 * slice of the case's time, until each has had every slice; the order rotates from one turn
 * to the next, so no system always follows the same one. A slow phase of the machine (the
 * disk or a neighbour for a minute) then weighs on every system of the case alike. Run one
 * after another for the whole case, the same systems' ratios moved by 2–3× between runs.
 * Between two slices the page cache is written back (`sync`): LanceDB and `floor-nosync` do
 * not fsync, so their pages are still to be written when their slice ends (after a 2 s slice
 * of `floor-nosync`, `sync` took 0.4 s), and written back during the next slice they would
 * queue ahead of another system's fsyncs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One system of a case, open for all its slices. */
export interface Contender {
  readonly system: string;
  /**
   * Writes for `seconds`, then waits until what it acked has settled (Sluice: every entry in
   * L0), so that its background work does not run in the next system's slice.
   */
  slice(seconds: number): Promise<void>;
}

/** Runs `slices` turns; each contender writes `seconds / slices` per turn. */
export async function takeTurns(
  contenders: readonly Contender[],
  slices: number,
  seconds: number,
): Promise<void> {
  for (let turn = 0; turn < slices; turn++) {
    for (let k = 0; k < contenders.length; k++) {
      await contenders[(turn + k) % contenders.length]!.slice(seconds / slices);
      await run('sync');
    }
  }
}

/**
 * BENCH_WRITE_SLICES, or one slice per two seconds of the case: the quick mode (2 s) runs
 * each system once, a 10 s case in five turns.
 */
export function slicesOf(value: string | undefined, seconds: number): number {
  if (value === undefined) return Math.max(1, Math.floor(seconds / 2));
  const slices = Number(value);
  if (!Number.isInteger(slices) || slices < 1) {
    throw new Error(`BENCH_WRITE_SLICES must be a whole number of at least 1, not ${value}`);
  }
  return slices;
}

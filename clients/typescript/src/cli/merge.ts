/**
 * `sluice merge <table>` and `sluice optimize <table>`: ask for a job in the table's merge
 * lane; `--follow` shows its progress until it ends, then what it did and what is left.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { SluiceClient } from '../client.ts';
import type { MergeStatus } from '../types.ts';

export type LaneWork = 'merge' | 'optimize';

export async function followLaneJob(
  client: SluiceClient,
  work: LaneWork,
  table: string,
  jobId: string,
  intervalMs: number,
): Promise<MergeStatus> {
  const bar = new SingleBar(
    {
      format: '{bar} {percentage}% | {state} | {value} of {total} rows | ETA {eta_formatted}',
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 500,
    },
    Presets.shades_classic,
  );
  let started = false;
  const onUpdate = (status: MergeStatus) => {
    const total = status.progress?.rowsTotal ?? 0;
    const done = status.progress?.rowsDone ?? 0;
    // A job with nothing to merge shows no bar: its summary line says what it did.
    if (total === 0) return;
    if (!started) bar.start(total, done, { state: status.state });
    started = true;
    bar.setTotal(total);
    bar.update(done, { state: status.state });
  };
  try {
    const follow = work === 'merge' ? client.followMerge : client.followOptimize;
    return await follow.call(client, table, jobId, { intervalMs, onUpdate });
  } finally {
    bar.stop();
  }
}

/** One line of what a finished lane job did: rows merged, its optimize, and whether the base has caught up. */
export function laneSummary(work: LaneWork, status: MergeStatus): string {
  if (status.state === 'failed') return `${work} failed: ${status.failedReason ?? 'no reason given'}`;
  const result = status.result;
  if (result?.status !== 'done') return `${work} ${status.state}: table ${result?.status ?? 'unknown'}`;
  const merged = result.merged ?? { generations: 0, rows: 0 };
  const parts = [`merged ${merged.rows} rows from ${merged.generations} generations`];
  const optimize = result.optimize;
  if (optimize?.error) parts.push(`optimize (${optimize.reason}) failed: ${optimize.error.message}`);
  else if (optimize?.skipped) parts.push(`optimize (${optimize.reason}) skipped: ${optimize.skipped}`);
  else if (optimize)
    parts.push(
      `optimized (${optimize.reason}) to Lance version ${optimize.lanceVersion ?? 'none: preempted'}`,
    );
  const pending = result.pending;
  parts.push(
    pending && pending.generations > 0
      ? `${pending.generations} generations (${pending.rows} rows) still pending; merges continue in the background`
      : 'caught up: nothing was pending when it ended',
  );
  return parts.join('; ');
}

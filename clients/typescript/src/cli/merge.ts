/** `sluice merge <table>`: asks for a merge; `--follow` shows its progress until it ends. */
import { Presets, SingleBar } from 'cli-progress';
import type { SluiceClient } from '../client.ts';
import type { MergeStatus } from '../types.ts';

export async function followMerge(
  client: SluiceClient,
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
  try {
    return await client.followMerge(table, jobId, {
      intervalMs,
      onUpdate: (status) => {
        const total = status.progress?.rowsTotal ?? 0;
        const done = status.progress?.rowsDone ?? 0;
        if (!started) bar.start(Math.max(total, 1), done, { state: status.state });
        started = true;
        bar.setTotal(Math.max(total, 1));
        bar.update(done, { state: status.state });
      },
    });
  } finally {
    bar.stop();
  }
}

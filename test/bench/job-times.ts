/**
 * How the seal and flush jobs of a write-bench case ran, from their workers' `completed`
 * events: how long each ran, how late each started against when it was due (added plus its
 * delay), and how far apart one shard's jobs of a queue started. A write's ack → L0 lag is
 * the wait for its shard's next seal (the seals' spacing), the seal, the flush and the lag
 * poller's round (docs/design.md, "Write bench"), so these say which of them a lag is.
 */
import type { Job, Worker } from 'bullmq';
import { type ShardJobData, shardTarget } from '../../queue/queues.ts';
import { percentile, round } from './write-drive.ts';

export interface JobPhase {
  jobs: number;
  runP50Ms: number;
  runP99Ms: number;
  lateP50Ms: number;
  lateP99Ms: number;
  /** Between the starts of one shard's jobs of the queue, one after another. */
  spacingP50Ms: number | null;
  spacingP99Ms: number | null;
}

export type JobFigures = Record<string, JobPhase>;

interface Started {
  runMs: number[];
  lateMs: number[];
  spacingMs: number[];
  lastStartOf: Map<string, number>;
}

export class JobTimes {
  private readonly queues = new Map<string, Started>();

  watch(workers: ReadonlyMap<string, Worker>): void {
    for (const [queue, worker] of workers) {
      worker.on('completed', (job: Job<ShardJobData>) => this.record(queue, job));
    }
  }

  /** The figures of the jobs completed since the last call. */
  take(): JobFigures {
    const figures: JobFigures = {};
    for (const [queue, started] of this.queues) figures[queue] = phaseOf(started);
    this.queues.clear();
    return figures;
  }

  private record(queue: string, job: Job<ShardJobData>): void {
    const { processedOn, finishedOn, timestamp } = job;
    if (!processedOn || !finishedOn) return;
    let started = this.queues.get(queue);
    if (!started) {
      started = { runMs: [], lateMs: [], spacingMs: [], lastStartOf: new Map() };
      this.queues.set(queue, started);
    }
    started.runMs.push(finishedOn - processedOn);
    started.lateMs.push(processedOn - (timestamp + (job.opts.delay ?? 0)));
    const target = shardTarget(job.data);
    const last = started.lastStartOf.get(target);
    if (last !== undefined) started.spacingMs.push(processedOn - last);
    started.lastStartOf.set(target, processedOn);
  }
}

function phaseOf(started: Started): JobPhase {
  const at = (values: number[], q: number) => round(percentile(values, q), 1);
  const run = started.runMs.sort((a, b) => a - b);
  const late = started.lateMs.sort((a, b) => a - b);
  const spacing = started.spacingMs.sort((a, b) => a - b);
  return {
    jobs: run.length,
    runP50Ms: at(run, 0.5),
    runP99Ms: at(run, 0.99),
    lateP50Ms: at(late, 0.5),
    lateP99Ms: at(late, 0.99),
    spacingP50Ms: spacing.length > 0 ? at(spacing, 0.5) : null,
    spacingP99Ms: spacing.length > 0 ? at(spacing, 0.99) : null,
  };
}

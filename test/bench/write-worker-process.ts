/**
 * The workers of one write-bench case, as the writing process sees them: in a process of
 * their own (write-workers.ts, the default), beside the writers in the writing process
 * (`inline`), or in a process of their own that is stopped while the writers write
 * (`paused`). Either way the case asks them, before
 * its clock starts and once every acked entry is in L0, for the store requests they made
 * through a store of their own and the peak RSS of their process since the last ask.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startWorkers } from '../../jobs/workers.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { type JobFigures, JobTimes } from './job-times.ts';
import type { WriteSluiceOptions } from './write-config.ts';
import type { RequestCounts } from './write-stores.ts';

export const WORKER_LAYOUTS = ['process', 'inline', 'paused'] as const;
export type WorkerLayout = (typeof WORKER_LAYOUTS)[number];

export type WorkersRequest = { type: 'sample' } | { type: 'close' };
export type WorkersReply =
  | { type: 'ready' }
  | { type: 'sample'; requests: RequestCounts; peakRssMb: number; jobs: JobFigures };

export interface WorkersSample {
  /** Through the workers' own store; none inline, where they share the writers' store. */
  requests: RequestCounts;
  /** Of the workers' process since the last sample; null inline. */
  peakRssMb: number | null;
  /** How the seal and flush jobs completed since the last sample ran. */
  jobs: JobFigures;
}

export interface BenchWorkers {
  readonly layout: WorkerLayout;
  /**
   * Runs the writers of one slice. `paused` stops the workers' process (SIGSTOP) meanwhile
   * and continues it after, so the acks are timed without a seal or flush on the same cores
   * and disk, as where the workers run on machines of their own; what was acked is sealed
   * and flushed once they go on, so the L0 lag then counts the pause.
   */
  whileWriting<T>(write: () => Promise<T>): Promise<T>;
  sample(): Promise<WorkersSample>;
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./write-workers.ts', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 15_000;
const CLOSE_GRACE_MS = 2_000;
const NO_REQUESTS: RequestCounts = { put: 0, get: 0, list: 0 };

export function workerLayout(value = 'process'): WorkerLayout {
  const layout = WORKER_LAYOUTS.find((l) => l === value);
  if (!layout) throw new Error(`BENCH_WRITE_WORKERS is ${WORKER_LAYOUTS.join(' or ')}, not "${value}"`);
  return layout;
}

export function inlineWorkers(sluice: Sluice): BenchWorkers {
  const workers = startWorkers(sluice, ['seal', 'flush']);
  const jobs = new JobTimes();
  jobs.watch(workers.workers);
  return {
    layout: 'inline',
    whileWriting: (write) => write(),
    sample: async () => ({ requests: NO_REQUESTS, peakRssMb: null, jobs: jobs.take() }),
    close: () => workers.close(CLOSE_GRACE_MS),
  };
}

/**
 * BENCH_WRITE_WORKERS_CPU_PROF=<dir> writes a V8 CPU profile of each case's workers'
 * process to `dir` (the writing process is profiled with `node --cpu-prof` itself; Node
 * refuses --cpu-prof in NODE_OPTIONS, so nothing else reaches the forked process).
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_WRITE_WORKERS_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

export async function spawnWorkers(
  options: WriteSluiceOptions,
  layout: 'process' | 'paused',
): Promise<BenchWorkers> {
  const child = fork(ENTRY, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx', ...profileArgs()],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    await reply(child, 'ready', READY_TIMEOUT_MS);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    layout,
    async whileWriting(write) {
      if (layout === 'process') return write();
      child.kill('SIGSTOP');
      try {
        return await write();
      } finally {
        child.kill('SIGCONT');
      }
    },
    async sample() {
      const answer = reply(child, 'sample', READY_TIMEOUT_MS);
      child.send({ type: 'sample' } satisfies WorkersRequest);
      const { requests, peakRssMb, jobs } = await answer;
      return { requests, peakRssMb, jobs };
    },
    async close() {
      if (exited(child)) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' } satisfies WorkersRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
      await gone;
      clearTimeout(timer);
    },
  };
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** The next reply of `type`; fails if the workers' process exits or stays silent first. */
function reply<T extends WorkersReply['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<WorkersReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: WorkersReply) => {
      if (message.type !== type) return;
      done();
      resolve(message as Extract<WorkersReply, { type: T }>);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      reject(new Error(`the bench workers' process exited (${code ?? signal}) before its ${type} reply`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the bench workers' process sent no ${type} reply within ${timeoutMs} ms`));
    }, timeoutMs);
    if (exited(child)) {
      onExit(child.exitCode, child.signalCode);
      return;
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

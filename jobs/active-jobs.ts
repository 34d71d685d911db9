/**
 * The jobs this process is running, with their lock tokens, so that a shutdown past its
 * grace period can hand them back: each goes back to waiting with no attempt spent, and
 * another worker takes it at once instead of after its lock lapses. This process's run of
 * it is abandoned, never trusted: whatever it still commits is a compare-and-swap that a
 * newer commit fences (I11), and its L0 file is the same deterministic artifact (I13).
 */
import type { Job } from 'bullmq';
import type { Logger } from '../shared/log.ts';

export class ActiveJobs {
  private readonly running = new Map<Job, string>();

  async run<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    if (token !== undefined) this.running.set(job, token);
    try {
      return await work();
    } finally {
      this.running.delete(job);
    }
  }

  async handBack(log: Logger): Promise<void> {
    await Promise.all(
      [...this.running].map(async ([job, token]) => {
        try {
          await job.moveToWait(token);
          log.warn({ queue: job.queueName, jobId: job.id }, 'shutdown grace period over: job handed back');
        } catch (err) {
          // Finished or lost its lock meanwhile: nothing is left to hand back.
          log.debug({ err, queue: job.queueName, jobId: job.id }, 'job not handed back');
        }
      }),
    );
  }
}

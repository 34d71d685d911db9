/**
 * The dead-letter queue as bull-board shows it. Its letters wait in a queue that has no
 * worker by design, so bull-board would list them as waiting and flag the queue "No
 * workers"; they are failed jobs, so they are shown as failed, each with the error and
 * stack it was recorded with, and the queue reports no worker count at all.
 */
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Job, Queue } from 'bullmq';
import type { DeadLetter } from '../queue/dead-letter.ts';

type BoardCounts = Awaited<ReturnType<BullMQAdapter['getJobCounts']>>;
type BoardStatus = Parameters<BullMQAdapter['getJobs']>[0][number];

export class DeadLetterBoardAdapter extends BullMQAdapter {
  constructor(letters: Queue<DeadLetter>) {
    super(letters, { readOnlyMode: true });
  }

  override async getJobCounts(): Promise<BoardCounts> {
    const counts = await super.getJobCounts();
    const zero = Object.fromEntries(Object.keys(counts).map((state) => [state, 0]));
    return { ...zero, failed: counts.waiting ?? 0 } as BoardCounts;
  }

  override async getJobs(statuses: BoardStatus[], start?: number, end?: number): Promise<Job[]> {
    if (!statuses.includes('failed')) return [];
    const jobs = await super.getJobs(['waiting'], start, end);
    return jobs.map((job) => asFailed(job as Job<DeadLetter>));
  }

  override async getWorkers(): Promise<null> {
    return null;
  }
}

function asFailed(job: Job<DeadLetter>): Job<DeadLetter> {
  const letter = job.data;
  job.failedReason = `${letter.error.code}: ${letter.error.message}`;
  job.stacktrace = letter.stack ? [letter.stack] : [];
  job.attemptsMade = letter.attempts;
  // The dashboard's times are the failed job's own: queued, last started, failed.
  job.timestamp = Date.parse(letter.enqueuedAt);
  job.processedOn = Date.parse(letter.lastStartedAt ?? letter.failedAt);
  job.finishedOn = Date.parse(letter.failedAt);
  return job;
}

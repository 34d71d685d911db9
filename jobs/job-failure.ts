/**
 * The one place where an error becomes a job outcome: a retryable SluiceError is thrown
 * as it is (BullMQ retries it with backoff), anything a retry cannot clear becomes an
 * `UnrecoverableError` (fails now, no budget spent).
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import type { SluiceError } from '../shared/errors.ts';

export function isLastAttempt(job: Job, error: SluiceError): boolean {
  return !error.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

export function failNow(error: SluiceError): UnrecoverableError {
  const failure = new UnrecoverableError(`${error.code}: ${error.message}`);
  failure.cause = error;
  return failure;
}

/** What the processor throws for `error`: the error itself to retry, or a final failure. */
export function jobOutcome(job: Job, error: SluiceError): Error {
  return isLastAttempt(job, error) ? failNow(error) : error;
}

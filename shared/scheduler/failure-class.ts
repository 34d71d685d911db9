/**
 * Which of Lance MemWAL's failure classes a failed merge or compaction falls in. The class
 * decides what an operator is told (`needsAttention`), not whether the job retries: that
 * stays with the error code's `retryable` (shared/errors.ts, jobs/job-failure.ts).
 */
import type { SluiceError } from '../errors.ts';
import type { FailureClass } from './contracts.ts';

/** Missing or corrupt data never heals by trying again, and is never repaired destructively. */
const DATA = new Set<string>(['DATA_MISSING', 'DATA_CORRUPT']);

export function classifyFailure(error: SluiceError): FailureClass {
  if (DATA.has(error.code) || error.code.startsWith('INVALID_')) return 'data-or-configuration';
  // Only an abort by a time budget (I16) is a deadline; a store timeout on its own is an outage.
  if ((error.code === 'TIMEOUT' || error.code === 'ABORTED') && error.details.budget !== undefined) {
    return 'deadline';
  }
  return 'retryable';
}

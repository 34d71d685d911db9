/**
 * What the sampler, the merge-lane jobs and the HTTP routes agree on about background
 * table work: its kinds, how a failure is classed, and the ledger entry kept per target.
 * Both kinds run in the table's merge lane; `compact` is the optimize (Lance's compaction,
 * index update and cleanup), counted and cooled down apart from merges.
 */
export const WORK_KINDS = ['merge', 'compact'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** Lance MemWAL's failure classes: a retry may help, a time budget ran out, or an operator must look. */
export type FailureClass = 'retryable' | 'deadline' | 'data-or-configuration';

export interface LedgerEntry {
  kind: WorkKind;
  /** The table name. */
  target: string;
  /** Consecutive failures; a success resets the entry. */
  failures: number;
  class: FailureClass;
  lastError: { code: string; message: string };
  firstFailureAt: string;
  lastFailureAt: string;
  /** I15: the scheduler skips the target until then; null = not in cooldown. */
  cooldownUntil: string | null;
  needsAttention: boolean;
}

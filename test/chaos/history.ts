/**
 * What a chaos run records: every write a client attempted and how it ended, and what the
 * system held once the faults stopped. The checker turns the two into a verdict.
 */

/**
 * How a logical write ended. `acked`: a 200 answer. `rejected`: an answer that promises
 * nothing was written (4xx other than 429, or no connection at all). `indeterminate`:
 * anything else (no answer, a timeout, 429 or 5xx, which a write spanning shards may get
 * after some of its shards took it): it may have taken effect, at any time after it began.
 */
export type Outcome = 'acked' | 'rejected' | 'indeterminate';

export interface Attempt {
  startedAt: number;
  endedAt: number;
  /** HTTP status, or null when no answer came. */
  status: number | null;
  /** The error code of the answer, or the client-side error. */
  error?: string;
}

/** One logical write: an upsert of `value` to every key (history ids), or a delete of every key. */
export interface WriteRecord {
  id: string;
  kind: 'upsert' | 'delete';
  keys: string[];
  /** The value an upsert wrote to every key; null for a delete. */
  value: string | null;
  /** Set when every attempt carried this Idempotency-Key (the same request, retried). */
  idempotencyKey: string | null;
  attempts: Attempt[];
  outcome: Outcome;
  startedAt: number;
  /** When the ack arrived; null unless acked. */
  ackedAt: number | null;
}

/** A row as a read saw it: `k` is the key's history id (key-shapes.ts), `v` its value. */
export interface FinalRow {
  k: string;
  v: string | null;
}

/**
 * One read during the run, over `[startedAt, endedAt]`: what it saw of each key it covers
 * (a lookup its keys, a scan every key of its table or range), null where the key was
 * absent; keys it returned twice; and, for a count, the count and the keys counted over.
 */
export interface ReadRecord {
  kind: 'lookup' | 'lookupMany' | 'scan' | 'range' | 'count';
  table: string;
  startedAt: number;
  endedAt: number;
  seen: FinalRow[];
  duplicates: string[];
  count?: { rows: number; keys: string[] };
}

/** The slice of shard stats the checks read (`GET /v1/tables/{t}/shards/{s}`). */
export interface ShardView {
  table: string;
  shard: number;
  frontier: number;
  walCursor: number;
  sealedThrough: number;
  currentGeneration: number;
  sealed: Array<{ generation: number }>;
  committed: Array<{ generation: number }>;
  mergedThrough: number;
  unsealedEntries: number;
  poison: unknown;
}

export interface FinalState {
  rows: FinalRow[];
  shards: ShardView[];
  deadLetters: number;
  /** Tables whose requests are all or nothing across their keys (a table WAL lane, I19). */
  atomicTables?: readonly string[];
}

export function outcomeOf(attempts: readonly Attempt[]): Outcome {
  if (attempts.some((a) => a.status === 200)) return 'acked';
  return attempts.every(isRejection) ? 'rejected' : 'indeterminate';
}

function isRejection(attempt: Attempt): boolean {
  if (attempt.status === null) return attempt.error === 'ECONNREFUSED';
  return attempt.status >= 400 && attempt.status < 500 && attempt.status !== 429;
}

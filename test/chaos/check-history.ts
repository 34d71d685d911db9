/**
 * The chaos run's verdict, from its history alone (pure: no I/O, no clock).
 *
 * Each key is a register, and each read of it is checked for linearizability over the
 * read's span `[from, to]`: the value read must be the effect of a write that may have
 * taken effect (it began before the read ended), and no write acked before the read began
 * may have begun after that write ended (it would then be newer). An acked write ends at
 * its ack; an indeterminate one may take effect at any time after it began, so it never
 * ends; a rejected one never took effect. Before any write a key is absent. The final
 * scan is one such read, after every write ended; reads during the run are others.
 */
import type { FinalRow, FinalState, ReadRecord, ShardView, WriteRecord } from './history.ts';

export interface Verdict {
  /** Keys absent although an acked upsert is their newest possible write. */
  lost: number;
  /** Keys holding a value some acked write began after (a delete that did not hide included). */
  stale: number;
  /** Keys the scan returned more than once. */
  duplicated: number;
  /**
   * Requests to an all-or-nothing table (I19) whose value the final read holds on some of
   * their keys, while another of their keys holds what an older write left there.
   */
  partial: number;
  /** Keys holding a value no write that may have landed wrote there. */
  phantom: number;
  /** Shards with sealed generations, unsealed WAL or a cursor short of the frontier. */
  unflushed: number;
  /** Shards whose base watermark is short of their last committed generation. */
  unmerged: number;
  /** Shards whose generations are not numbered 1, 2, 3… without a gap. */
  gaps: number;
  poisoned: number;
  deadLetters: number;
  /** One line per violation, for the person reading a failed run. */
  problems: string[];
}

export function violations(verdict: Verdict): number {
  const { problems: _, ...counts } = verdict;
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export function checkHistory(writes: readonly WriteRecord[], final: FinalState): Verdict {
  const verdict: Verdict = {
    lost: 0,
    stale: 0,
    duplicated: 0,
    partial: 0,
    phantom: 0,
    unflushed: 0,
    unmerged: 0,
    gaps: 0,
    poisoned: 0,
    deadLetters: final.deadLetters,
    problems: [],
  };
  if (final.deadLetters > 0) verdict.problems.push(`${final.deadLetters} dead letter(s)`);
  checkKeys(writes, final.rows, verdict);
  checkAtomicity(writes, final, verdict);
  for (const shard of final.shards) checkShard(shard, verdict);
  return verdict;
}

/**
 * I19, on the final read: an upsert seen on one of its keys landed, so each of its other
 * keys must hold it too, or what a write not acked before it began left there (a newer
 * value, or absence after a delete). Only an upsert's value shows where it landed; a
 * request to a table of shard lanes may land on some shards and not others (unacked).
 */
function checkAtomicity(writes: readonly WriteRecord[], final: FinalState, verdict: Verdict): void {
  const atomic = new Set(final.atomicTables ?? []);
  if (atomic.size === 0) return;
  const byKey = writesByKey(writes);
  const read = new Map(final.rows.map((row) => [row.k, row.v]));
  for (const write of writes) {
    if (write.kind !== 'upsert' || write.keys.length < 2 || !atomic.has(tableOfKey(write.keys[0]!))) continue;
    if (!write.keys.some((key) => read.get(key) === write.value)) continue;
    for (const key of write.keys) {
      if (read.get(key) === write.value || overwritten(write, byKey.get(key) ?? [], read.get(key))) continue;
      verdict.partial += 1;
      verdict.problems.push(
        `partial: ${describe(write)} holds on some of its keys, but key ${key} holds ${JSON.stringify(read.get(key) ?? null)}`,
      );
    }
  }
}

/** Whether a write on the key that may be newer than `write` left `value` (undefined: absent). */
function overwritten(
  write: WriteRecord,
  writes: readonly WriteRecord[],
  value: string | null | undefined,
): boolean {
  return writes.some(
    (other) =>
      other !== write &&
      other.outcome !== 'rejected' &&
      !(other.outcome === 'acked' && other.ackedAt! < write.startedAt) &&
      (value === undefined ? other.kind === 'delete' : other.kind === 'upsert' && other.value === value),
  );
}

/** A key's history id is `{table}:{key}` (key-shapes.ts). */
function tableOfKey(key: string): string {
  return key.slice(0, key.indexOf(':'));
}

/** The span of a read; the final scan's spans every write. */
interface Span {
  from: number;
  to: number;
}

const AFTER_EVERYTHING: Span = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };

function writesByKey(writes: readonly WriteRecord[]): Map<string, WriteRecord[]> {
  const byKey = new Map<string, WriteRecord[]>();
  for (const write of writes) {
    for (const key of write.keys) byKey.set(key, [...(byKey.get(key) ?? []), write]);
  }
  return byKey;
}

function checkKeys(writes: readonly WriteRecord[], rows: readonly FinalRow[], verdict: Verdict): void {
  const byKey = writesByKey(writes);
  const read = new Map<string, FinalRow>();
  for (const row of rows) {
    if (read.has(row.k)) {
      verdict.duplicated += 1;
      verdict.problems.push(`duplicated: key ${row.k} read more than once`);
    }
    read.set(row.k, row);
  }
  for (const key of new Set([...byKey.keys(), ...read.keys()])) {
    const problem = checkKey(key, byKey.get(key) ?? [], read.get(key), AFTER_EVERYTHING);
    if (problem) {
      verdict[problem.kind] += 1;
      verdict.problems.push(`${problem.kind}: ${problem.detail}`);
    }
  }
}

type KeyProblem = { kind: 'lost' | 'stale' | 'phantom'; detail: string };

/** What a read over `span` may see of a key: which writes' values, and whether absence. */
function possibilities(writes: readonly WriteRecord[], span: Span) {
  const landed = writes.filter((w) => w.outcome !== 'rejected' && w.startedAt < span.to);
  const ackedBefore = writes.filter((w) => w.outcome === 'acked' && w.ackedAt! < span.from);
  const newestAckedStart = Math.max(Number.NEGATIVE_INFINITY, ...ackedBefore.map((w) => w.startedAt));
  // A write is still possible at the read when no write acked before the read began it after it ended.
  const possible = (w: WriteRecord) => (w.ackedAt ?? Number.POSITIVE_INFINITY) >= newestAckedStart;
  return {
    landed,
    possible,
    newestAcked: ackedBefore.find((w) => w.startedAt === newestAckedStart),
    absentPossible:
      newestAckedStart === Number.NEGATIVE_INFINITY || landed.some((w) => w.kind === 'delete' && possible(w)),
    presentPossible: landed.some((w) => w.kind === 'upsert' && possible(w)),
  };
}

function checkKey(
  key: string,
  writes: readonly WriteRecord[],
  row: FinalRow | undefined,
  span: Span,
): KeyProblem | null {
  const { landed, possible, newestAcked, absentPossible } = possibilities(writes, span);
  if (row === undefined) {
    return absentPossible
      ? null
      : { kind: 'lost', detail: `key ${key} absent; acked ${describe(newestAcked)}` };
  }
  const writers = landed.filter((w) => w.kind === 'upsert' && w.value === row.v);
  if (writers.length === 0) {
    return { kind: 'phantom', detail: `key ${key} holds ${JSON.stringify(row.v)}, which no write put there` };
  }
  if (writers.some(possible)) return null;
  return {
    kind: 'stale',
    detail: `key ${key} holds ${JSON.stringify(row.v)} of ${describe(writers[0])}; newer acked ${describe(newestAcked)}`,
  };
}

export interface ReadVerdict {
  /** Key observations and counts checked. */
  checked: number;
  violations: number;
  problems: string[];
}

/**
 * Every read made during the run, each over its own span: every key it covered (absent or
 * with a value), no key twice, and a count between the keys that must be live and the
 * keys that may be.
 */
export function checkReads(writes: readonly WriteRecord[], reads: readonly ReadRecord[]): ReadVerdict {
  const byKey = writesByKey(writes);
  const verdict: ReadVerdict = { checked: 0, violations: 0, problems: [] };
  const fail = (read: ReadRecord, detail: string) => {
    verdict.violations += 1;
    verdict.problems.push(`read ${read.kind} of ${read.table} at ${read.startedAt.toFixed(0)} ms: ${detail}`);
  };
  for (const read of reads) {
    const span = { from: read.startedAt, to: read.endedAt };
    for (const key of read.duplicates) fail(read, `key ${key} returned twice`);
    for (const row of read.seen) {
      verdict.checked += 1;
      const problem = checkKey(row.k, byKey.get(row.k) ?? [], row.v === null ? undefined : row, span);
      if (problem) fail(read, `${problem.kind}: ${problem.detail}`);
    }
    if (read.count) {
      verdict.checked += 1;
      const each = read.count.keys.map((key) => possibilities(byKey.get(key) ?? [], span));
      const least = each.filter((p) => !p.absentPossible).length;
      const most = each.filter((p) => p.presentPossible).length;
      if (read.count.rows < least || read.count.rows > most) {
        fail(read, `count ${read.count.rows}, but between ${least} and ${most} keys were live`);
      }
    }
  }
  return verdict;
}

function describe(write: WriteRecord | undefined): string {
  if (!write) return 'nothing';
  return `${write.kind} ${write.id}${write.value === null ? '' : ` (${JSON.stringify(write.value)})`}`;
}

/**
 * I3 and the end state once faults stop: committed generations run without a gap from
 * the merged ones to the sealed ones, nothing is left to seal or flush, and the base
 * watermark stands at the last committed generation.
 */
function checkShard(shard: ShardView, verdict: Verdict): void {
  const committed = shard.committed.map((c) => c.generation);
  const sealed = shard.sealed.map((s) => s.generation);
  const firstHeld = committed[0] ?? sealed[0] ?? shard.currentGeneration;
  const held = [...committed, ...sealed];
  const contiguous =
    firstHeld <= shard.mergedThrough + 1 &&
    held.every((generation, i) => generation === firstHeld + i) &&
    (committed.at(-1) ?? shard.mergedThrough) === shard.currentGeneration - 1;
  if (!contiguous) {
    verdict.gaps += 1;
    verdict.problems.push(
      `gap: shard ${shard.table}/${shard.shard} merged through ${shard.mergedThrough}, committed [${committed}], sealed [${sealed}], current ${shard.currentGeneration}`,
    );
  }
  if (sealed.length > 0 || shard.unsealedEntries > 0 || shard.walCursor !== shard.frontier) {
    verdict.unflushed += 1;
    verdict.problems.push(
      `unflushed: shard ${shard.table}/${shard.shard} sealed [${sealed}], ${shard.unsealedEntries} unsealed WAL entries, cursor ${shard.walCursor}, frontier ${shard.frontier}`,
    );
  }
  if (shard.mergedThrough !== shard.currentGeneration - 1) {
    verdict.unmerged += 1;
    verdict.problems.push(
      `unmerged: shard ${shard.table}/${shard.shard} merged through ${shard.mergedThrough}, last committed ${committed.at(-1) ?? 'none held'}`,
    );
  }
  if (shard.poison !== null) {
    verdict.poisoned += 1;
    verdict.problems.push(`poisoned: shard ${shard.table}/${shard.shard} ${JSON.stringify(shard.poison)}`);
  }
}

/**
 * The verdict on the append-only table, from its history alone (pure: no I/O, no clock).
 *
 * An append is all or nothing (one request lands whole on one shard) and lands at most
 * once: a read over `[from, to]` holds every row of each append acked before `from`, no
 * row of a rejected one or of one begun after `to`, and of any other append all its rows
 * or none, each once. A row's `tag` is its append's own when the append named it, else
 * the column's default — or absent, for a read whose snapshot may predate the change.
 */
import { type AppendRead, type AppendRecord, type AppendRow, DEFAULT_TAG, tagOf } from './appends.ts';

export interface AppendVerdict {
  /** Rows and counts checked. */
  checked: number;
  violations: number;
  problems: string[];
}

/** The span of a read, and from when its snapshot must hold the schema change (Infinity: never). */
export interface AppendSpan {
  from: number;
  to: number;
  changedBy: number;
}

export function checkAppendRead(
  appends: readonly AppendRecord[],
  rows: readonly AppendRow[],
  span: AppendSpan,
): string[] {
  const byId = new Map(appends.map((a) => [a.id, a]));
  const problems: string[] = [];
  const seen = new Map<string, Set<number>>();
  for (const row of rows) {
    const append = byId.get(row.w);
    if (!append || append.outcome === 'rejected' || append.startedAt >= span.to || row.i >= append.rows) {
      problems.push(`phantom: row ${row.w}/${row.i}, which no append that may have landed wrote`);
      continue;
    }
    const indexes = seen.get(row.w) ?? new Set<number>();
    if (indexes.has(row.i)) problems.push(`duplicated: row ${row.w}/${row.i} read more than once`);
    indexes.add(row.i);
    seen.set(row.w, indexes);
    const tags = [
      append.tagged ? tagOf(append.id) : DEFAULT_TAG,
      ...(span.from < span.changedBy ? [null] : []),
    ];
    if (!tags.includes(row.tag)) {
      problems.push(
        `wrong tag: row ${row.w}/${row.i} reads ${JSON.stringify(row.tag)}, expected ${tags.join(' or ')}`,
      );
    }
  }
  for (const append of appends) {
    const found = seen.get(append.id)?.size ?? 0;
    if (found === append.rows || (found === 0 && !ackedBefore(append, span.from))) continue;
    problems.push(
      found === 0
        ? `lost: append ${append.id} of ${append.rows} rows, acked, absent`
        : `torn: append ${append.id} has ${found} of its ${append.rows} rows`,
    );
  }
  return problems;
}

/** A count over `span` lies between the rows that must be there and the rows that may. */
export function checkAppendCount(
  appends: readonly AppendRecord[],
  count: number,
  span: AppendSpan,
): string[] {
  const least = sumRows(appends.filter((a) => ackedBefore(a, span.from)));
  const most = sumRows(appends.filter((a) => a.outcome !== 'rejected' && a.startedAt < span.to));
  return count < least || count > most
    ? [`count ${count}, but between ${least} and ${most} rows were live`]
    : [];
}

/** Every read of the append-only table during the run and at the end. */
export function checkAppends(
  appends: readonly AppendRecord[],
  reads: readonly AppendRead[],
  changeAckedAt: number,
): AppendVerdict {
  const verdict: AppendVerdict = { checked: 0, violations: 0, problems: [] };
  // A valid append is never refused: a 400 here is a process that did not take the change.
  for (const append of appends) {
    const refused = append.attempts.find((a) => a.status === 400);
    if (!refused) continue;
    verdict.violations += 1;
    verdict.problems.push(
      `refused: append ${append.id}${append.tagged ? ' (tagged)' : ''} answered 400 ${refused.error}`,
    );
  }
  for (const read of reads) {
    const span = { from: read.startedAt, to: read.endedAt, changedBy: changeAckedAt };
    const problems =
      read.kind === 'count'
        ? checkAppendCount(appends, read.rows, span)
        : checkAppendRead(appends, read.seen, span);
    verdict.checked += read.kind === 'count' ? 1 : read.seen.length;
    verdict.violations += problems.length;
    verdict.problems.push(
      ...problems.map(
        (p) => `${read.kind} of the append-only table at ${read.startedAt.toFixed(0)} ms: ${p}`,
      ),
    );
  }
  return verdict;
}

function ackedBefore(append: AppendRecord, at: number): boolean {
  return append.outcome === 'acked' && append.ackedAt! < at;
}

function sumRows(appends: readonly AppendRecord[]): number {
  return appends.reduce((sum, a) => sum + a.rows, 0);
}

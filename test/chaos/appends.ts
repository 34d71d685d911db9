/**
 * The chaos run's append-only table: a table with no primary key, whose clients append
 * requests of a few rows (`w`, the write's id, and `i`, the row's place in it) and whose
 * readers count it and scan it whole, while the faults strike. A third of the way into
 * the run its schema changes under the writers: a utf8 column `tag` with a default is
 * added and `i` is widened from int32 to int64. Appends sent after the change was acked
 * name `tag`; the rows of every other append must read the default.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { backOff, endOf, errorCode, sendSettled } from './clients.ts';
import type { Attempt, Outcome } from './history.ts';

export const APPEND_TABLE = 'chaos_log';
/** What a row written before the change, or by an append that leaves `tag` out, reads. */
export const DEFAULT_TAG = 'untagged';
const PAGE = 256;
const READ_TIMEOUT_MS = 15_000;

export const appendSchema = {
  fields: [
    { name: 'w', type: 'utf8', nullable: false },
    { name: 'i', type: 'int32', nullable: false },
  ],
};

/** The change made during the run: one column added with a default, one widened. */
export const schemaChange = {
  add: [{ name: 'tag', type: 'utf8', default: DEFAULT_TAG }],
  alter: [{ name: 'i', type: 'int64' }],
};

/** One append request and how it ended. */
export interface AppendRecord {
  id: string;
  rows: number;
  /** Whether its rows named `tag` (sent only once the schema change was acked). */
  tagged: boolean;
  attempts: Attempt[];
  outcome: Outcome;
  startedAt: number;
  ackedAt: number | null;
}

/** A row of the append-only table as a read answered it. */
export interface AppendRow {
  w: string;
  i: number;
  tag: string | null;
}

/** A count or a whole scan of the append-only table during the run, over its span. */
export interface AppendRead {
  kind: 'count' | 'scan';
  startedAt: number;
  endedAt: number;
  rows: number;
  /** The rows a scan answered; empty for a count. */
  seen: AppendRow[];
}

export function tagOf(id: string): string {
  return `tag-${id}`;
}

export interface AppenderOptions {
  apiUrl: string;
  token: string;
  random: () => number;
  stopped: () => boolean;
  /** Whether the schema change has been acked: from then on appends name `tag`. */
  changed: () => boolean;
  record: (append: AppendRecord) => void;
}

/** Appends requests of 1–6 rows, one at a time, until stopped; some carry an Idempotency-Key and are retried. */
export async function runAppender(options: AppenderOptions): Promise<void> {
  const { random } = options;
  for (let n = 0; !options.stopped(); n += 1) {
    const id = `a${n}`;
    const rows = 1 + Math.floor(random() * 6);
    const tagged = options.changed();
    const body = {
      rows: Array.from({ length: rows }, (_, i) => (tagged ? { w: id, i, tag: tagOf(id) } : { w: id, i })),
    };
    const idempotencyKey = random() < 0.4 ? `chaos-${id}` : null;
    const ended = endOf(
      await sendSettled(options, { table: APPEND_TABLE, method: 'POST', body, idempotencyKey }),
    );
    options.record({ id, rows, tagged, ...ended });
    await backOff(ended.outcome, random);
  }
}

export interface AppendReaderOptions {
  apiUrl: string;
  token: string;
  random: () => number;
  stopped: () => boolean;
  record: (read: AppendRead) => void;
  failed: (answer: string) => void;
}

/** Counts the append-only table, and now and then scans it whole, until stopped. */
export async function runAppendReader(options: AppendReaderOptions): Promise<void> {
  const { random } = options;
  while (!options.stopped()) {
    const kind = random() < 0.7 ? 'count' : 'scan';
    const startedAt = performance.now();
    try {
      const read =
        kind === 'count'
          ? { rows: ((await getJson(options, '/rows/count')) as { rows: number }).rows, seen: [] }
          : await scanAll(options);
      options.record({ kind, startedAt, endedAt: performance.now(), ...read });
    } catch (err) {
      options.failed(err instanceof Error && err.name === 'ReadFailed' ? err.message : errorCode(err));
      await sleep(100 + random() * 300);
    }
    await sleep(random() * 100);
  }
}

/** Every row of the append-only table, through one paged scan (its cursor pins one snapshot). */
export async function scanAll(
  options: Pick<AppendReaderOptions, 'apiUrl' | 'token'>,
): Promise<{ rows: number; seen: AppendRow[] }> {
  const seen: AppendRow[] = [];
  let after: string | null = null;
  do {
    const cursor: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
    const page = (await getJson(options, `/rows?limit=${PAGE}${cursor}`)) as {
      rows: Array<Record<string, unknown>>;
      next: string | null;
    };
    seen.push(...page.rows.map(appendRowOf));
    after = page.next;
  } while (after !== null);
  return { rows: seen.length, seen };
}

/** A row as the API or LanceDB gives it; `i` may come as a number, a bigint or a decimal string. */
export function appendRowOf(row: Record<string, unknown>): AppendRow {
  return { w: String(row.w), i: Number(row.i), tag: (row.tag as string | null | undefined) ?? null };
}

async function getJson(options: Pick<AppendReaderOptions, 'apiUrl' | 'token'>, path: string) {
  const response = await fetch(`${options.apiUrl}/v1/tables/${APPEND_TABLE}${path}`, {
    headers: { authorization: `Bearer ${options.token}` },
    signal: AbortSignal.timeout(READ_TIMEOUT_MS),
  });
  const answer = (await response.json().catch(() => null)) as { error?: { code?: string } } | null;
  if (response.ok) return answer;
  const failure = new Error([response.status, answer?.error?.code].filter(Boolean).join(' '));
  failure.name = 'ReadFailed';
  throw failure;
}

/**
 * The chaos run's readers: while the clients write and the faults strike, each reads one
 * table at a time over HTTP — a point lookup, a lookup of many keys, a count, a whole
 * multi-page scan or a key range — and records what it saw of every key the read covers,
 * for the checker to hold against the writes (check-history.ts, checkReads).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode } from './clients.ts';
import type { FinalRow, ReadRecord } from './history.ts';
import type { KeyInput, KeyShape } from './key-shapes.ts';

const READ_TIMEOUT_MS = 15_000;
const PAGE = 64;

export interface ReaderOptions {
  apiUrl: string;
  token: string;
  shapes: readonly KeyShape[];
  random: () => number;
  stopped: () => boolean;
  record: (read: ReadRecord) => void;
  /** A read that got no usable answer (an error status or none), by what it got. */
  failed: (answer: string) => void;
}

const KINDS: ReadRecord['kind'][] = [
  'lookup',
  'lookup',
  'lookupMany',
  'lookupMany',
  'count',
  'scan',
  'range',
];

export async function runReader(options: ReaderOptions): Promise<void> {
  const { random } = options;
  while (!options.stopped()) {
    const shape = options.shapes[Math.floor(random() * options.shapes.length)]!;
    const kind = KINDS[Math.floor(random() * KINDS.length)]!;
    const startedAt = performance.now();
    try {
      const observed = await READS[kind](new Api(options, shape.table), shape, random);
      options.record({ kind, table: shape.table, startedAt, endedAt: performance.now(), ...observed });
    } catch (err) {
      options.failed(err instanceof ReadFailed ? err.answer : errorCode(err));
      await sleep(100 + random() * 300);
    }
    await sleep(random() * 50);
  }
}

type Observed = Pick<ReadRecord, 'seen' | 'duplicates' | 'count'>;

const READS: Record<
  ReadRecord['kind'],
  (api: Api, shape: KeyShape, random: () => number) => Promise<Observed>
> = {
  async lookup(api, shape, random) {
    const key = pick(shape.keys, random);
    const answer = await api.get(`/rows?key=${encodeURIComponent(JSON.stringify(key))}`, [404]);
    const row = (answer as { row?: Record<string, unknown> } | null)?.row;
    return { seen: [row ? observed(shape, row) : { k: shape.idOf(key), v: null }], duplicates: [] };
  },
  async lookupMany(api, shape, random) {
    const keys = Array.from({ length: 1 + Math.floor(random() * 50) }, () => pick(shape.keys, random));
    const answer = (await api.post('/rows/lookup', { keys })) as {
      rows: Record<string, unknown>[];
      missing: KeyInput[];
    };
    const seen = [
      ...answer.rows.map((row) => observed(shape, row)),
      ...answer.missing.map((k) => absent(shape, k)),
    ];
    return { seen, duplicates: duplicatesOf(seen) };
  },
  async count(api, shape) {
    const answer = (await api.get('/rows/count')) as { rows: number };
    return {
      seen: [],
      duplicates: [],
      count: { rows: answer.rows, keys: shape.keys.map((k) => shape.idOf(k)) },
    };
  },
  scan: (api, shape) => scanned(api, shape, shape.keys, ''),
  range(api, shape, random) {
    const from = Math.floor(random() * shape.keys.length);
    const to = from + 1 + Math.floor(random() * (shape.keys.length - from));
    const bound = (name: string, key: KeyInput) => `&${name}=${encodeURIComponent(JSON.stringify(key))}`;
    const range =
      bound('from', shape.keys[from]!) + (to < shape.keys.length ? bound('to', shape.keys[to]!) : '');
    return scanned(api, shape, shape.keys.slice(from, to), range);
  },
};

/** Every page of a scan; each covered key is seen with its value or as absent. */
async function scanned(
  api: Api,
  shape: KeyShape,
  covered: readonly KeyInput[],
  range: string,
): Promise<Observed> {
  const rows: FinalRow[] = [];
  let after: string | null = null;
  do {
    const cursor: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
    const page = (await api.get(`/rows?limit=${PAGE}${cursor}${range}`)) as {
      rows: Record<string, unknown>[];
      next: string | null;
    };
    rows.push(...page.rows.map((row) => observed(shape, row)));
    after = page.next;
  } while (after !== null);
  const found = new Set(rows.map((r) => r.k));
  const missing = covered.map((k) => shape.idOf(k)).filter((id) => !found.has(id));
  return { seen: [...rows, ...missing.map((k) => ({ k, v: null }))], duplicates: duplicatesOf(rows) };
}

function observed(shape: KeyShape, row: Record<string, unknown>): FinalRow {
  return { k: shape.idOfRow(row), v: (row.v as string | null) ?? null };
}

function absent(shape: KeyShape, key: KeyInput): FinalRow {
  return { k: shape.idOf(key), v: null };
}

function duplicatesOf(rows: readonly FinalRow[]): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const row of rows) {
    if (seen.has(row.k)) twice.push(row.k);
    seen.add(row.k);
  }
  return twice;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

class ReadFailed extends Error {
  constructor(readonly answer: string) {
    super(answer);
  }
}

class Api {
  constructor(
    private readonly options: ReaderOptions,
    private readonly table: string,
  ) {}

  get(path: string, absentStatuses: number[] = []): Promise<unknown> {
    return this.call('GET', path, undefined, absentStatuses);
  }

  post(path: string, body: unknown): Promise<unknown> {
    return this.call('POST', path, body, []);
  }

  private async call(
    method: string,
    path: string,
    body: unknown,
    absentStatuses: number[],
  ): Promise<unknown> {
    const response = await fetch(`${this.options.apiUrl}/v1/tables/${this.table}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(READ_TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => null)) as { error?: { code?: string } } | null;
    if (response.ok) return answer;
    if (absentStatuses.includes(response.status)) return null;
    throw new ReadFailed([response.status, answer?.error?.code].filter(Boolean).join(' '));
  }
}

/**
 * Sluice deployed as docs/design.md, "Processes and deployment" scales it, every part its own process on one
 * Redis and one store: an API process (SLUICE_ROLE=api), two `seal,flush` workers, two
 * `merge,compact` workers and exactly one `sampler`. A load of writes goes in over HTTP;
 * every acked row comes back over HTTP; no two flushes of a shard and no two merges of a
 * table ever ran at once across the processes (I12, from their 'started'/'ended' log
 * lines); and the sampler's merges reached the base table.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type Call, httpClient, type TestTokens, testTokens } from '../support/http-client.ts';
import { type LoggedProcess, type LogLine, spawnLogged } from '../support/logged-process.ts';
import { eventRows, eventsTable, inKeyOrder } from '../support/rows.ts';
import { type ServerProcess, spawnServer } from '../support/server-process.ts';
import { waitFor } from '../support/wait-for.ts';
import { childEnv } from '../support/worker-process.ts';

const TABLE = 'load';
const SHARDS = 4;
const BATCHES = 100;
const BATCH_ROWS = 25;
const WRITERS = 8;

interface Run {
  target: string;
  start: number;
  end: number;
  pid: number;
}

/** Every run of a job kind in the lines, from its started line to its ended line. */
function runs(lines: LogLine[], kind: 'flush' | 'merge', targetOf: (line: LogLine) => string): Run[] {
  const open = new Map<string, LogLine>();
  const out: Run[] = [];
  for (const line of [...lines].sort((a, b) => a.time - b.time)) {
    const id = `${line.pid}/${String(line.jobId)}`;
    if (line.msg === `${kind} started`) open.set(id, line);
    const start = open.get(id);
    if (line.msg === `${kind} ended` && start) {
      open.delete(id);
      out.push({ target: targetOf(line), start: start.time, end: line.time, pid: line.pid });
    }
  }
  return out;
}

/** I12: per target, each run starts no earlier than the one before it ended. */
function assertOneAtATime(all: Run[]) {
  const byTarget = new Map<string, Run[]>();
  for (const run of all) byTarget.set(run.target, [...(byTarget.get(run.target) ?? []), run]);
  for (const [target, list] of byTarget) {
    const sorted = list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const [previous, current] = [sorted[i - 1]!, sorted[i]!];
      expect(current.start >= previous.end, `${target}: ${JSON.stringify([previous, current])}`).toBe(true);
    }
  }
}

describe('one API process and workers scaled per queue group (torture)', () => {
  let h: Harness;
  let api: ServerProcess;
  let tokens: TestTokens;
  let call: Call;
  const workers: Record<string, LoggedProcess[]> = {};

  beforeAll(async () => {
    h = await createHarness();
    tokens = testTokens();
    api = await spawnServer({
      storeDir: h.dir.path,
      redisUrl: h.config.redisUrl,
      redisPrefix: h.config.redisPrefix,
      role: 'api',
      env: { SLUICE_TOKENS: tokens.env },
    });
    call = httpClient(api.url);
    const env = childEnv(h.config, { SLUICE_SAMPLER_INTERVAL_SECONDS: '1' });
    for (const queues of ['seal,flush', 'seal,flush', 'merge,compact', 'merge,compact', 'sampler']) {
      workers[queues] = [
        ...(workers[queues] ?? []),
        spawnLogged('jobs/worker.ts', [`--queues=${queues}`], env),
      ];
    }
    // Five processes start at once, beside other test files: they get longer than spawnWorker's 20 s.
    await Promise.all(
      Object.values(workers)
        .flat()
        .map((w) => w.waitForLine((l) => l.msg === 'workers ready', 'a worker to be ready', 90_000)),
    );
  }, 120_000);

  afterAll(async () => {
    const all = Object.values(workers).flat();
    const codes = await Promise.all([api?.stop(), ...all.map((w) => w.stop())]);
    expect(codes).toEqual(codes.map(() => 0));
    await h?.close();
  });

  /** Writes as a polite client does: 429 waits as told (scaled down), 503 is retried. */
  async function write(rows: JsonRow[]): Promise<void> {
    for (;;) {
      const reply = await call('POST', `/v1/tables/${TABLE}/rows`, { token: tokens.write, json: { rows } });
      if (reply.status === 200) return;
      if (reply.status !== 429 && reply.status !== 503)
        throw new Error(`write: ${reply.status} ${reply.bytes}`);
      await sleep(Number(reply.headers['retry-after'] ?? 1) * 100);
    }
  }

  async function readEverything(): Promise<JsonRow[]> {
    const rows: JsonRow[] = [];
    let after: string | null = null;
    do {
      const page = await call('GET', `/v1/tables/${TABLE}/rows?limit=1000${after ? `&after=${after}` : ''}`, {
        token: tokens.read,
      });
      expect(page.status).toBe(200);
      rows.push(...page.json.rows);
      after = page.json.next;
    } while (after);
    // Pending rows come in key order, the base in its storage order: compared in key order.
    return inKeyOrder((await h.sluice.tables.describe(TABLE)).schema, rows);
  }

  it('processes a load of HTTP writes with I12 holding, merges it, and reads every row back', async () => {
    const created = await call('POST', '/v1/tables', {
      token: tokens.write,
      json: eventsTable(TABLE, {
        shards: SHARDS,
        settings: { sealDelayMs: 5, mergeAfterGenerations: 2, maxGenerationsPerMerge: 4 },
      }),
    });
    expect(created.status).toBe(201);

    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        for (let i = next++; i < BATCHES; i = next++) {
          await write(eventRows(i * BATCH_ROWS + 1, (i + 1) * BATCH_ROWS));
        }
      }),
    );
    const acked = eventRows(1, BATCHES * BATCH_ROWS);

    await waitFor(
      async () => {
        const described = await call('GET', `/v1/tables/${TABLE}`, { token: tokens.read });
        if (described.json.stats.baseVersion === 0) return false;
        for (let shard = 0; shard < SHARDS; shard++) {
          const stats = await call('GET', `/v1/tables/${TABLE}/shards/${shard}`, { token: tokens.read });
          if (stats.json.unsealedEntries > 0 || stats.json.sealed.length > 0) return false;
        }
        return true;
      },
      { message: 'every shard flushed and a merge committed', timeoutMs: 30_000 },
    );
    expect(await readEverything()).toEqual(acked);

    const flushers = workers['seal,flush']!.flatMap((w) => w.lines);
    const flushes = runs(flushers, 'flush', (l) => `${String(l.table)}/${String(l.shard)}`);
    expect(new Set(flushes.map((run) => run.pid)).size).toBe(2);
    assertOneAtATime(flushes);

    const mergers = workers['merge,compact']!.flatMap((w) => w.lines);
    const merges = runs(mergers, 'merge', (l) => String(l.table));
    expect(merges.length).toBeGreaterThan(0);
    assertOneAtATime(merges);
    // The one sampler process asked for them: no merge here was requested by hand.
    expect(mergers.filter((l) => l.msg === 'merge started').every((l) => l.manual === false)).toBe(true);
  });
});

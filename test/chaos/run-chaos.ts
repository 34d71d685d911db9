/**
 * One seeded chaos run, top to bottom: start Sluice as deployed, let clients write and
 * readers read (a table of each key shape) while the schedule's faults strike, stop the
 * faults, wait a bounded time for the pipeline to settle, read everything back through
 * every read path and from the base with LanceDB, and judge the history.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { testTokens } from '../support/http-client.ts';
import { seededRandom } from '../support/random.ts';
import { createTempDir } from '../support/temp-dir.ts';
import {
  APPEND_TABLE,
  type AppendRead,
  type AppendRecord,
  appendSchema,
  runAppender,
  runAppendReader,
  scanAll,
  schemaChange,
} from './appends.ts';
import { checkAppendBase, checkBase } from './base-check.ts';
import { type ChaosStoreKind, chaosStore } from './chaos-store.ts';
import { type AppendVerdict, checkAppends } from './check-appends.ts';
import { checkHistory, checkReads, type ReadVerdict, type Verdict, violations } from './check-history.ts';
import { runClient } from './clients.ts';
import { ChaosCluster } from './cluster.ts';
import type { FinalRow, FinalState, ReadRecord, ShardView, WriteRecord } from './history.ts';
import { finalRow, type KeyInput, type KeyShape, keyShapes } from './key-shapes.ts';
import { runReader } from './readers.ts';
import {
  type ChaosSchedule,
  chaosSchedule,
  type FaultKind,
  faultCounts,
  PROCESSES,
  type ProcessFault,
  WORKERS,
} from './schedule.ts';

const SHARDS = 4;
/** Keys per table; each of the three key shapes has a table of its own. */
const KEY_SPACE = 64;
const SHAPES = keyShapes(KEY_SPACE);
/**
 * The composite-key table writes through one WAL lane for the table (docs/table-wal-lane.md):
 * its requests, spread over its shards, are all or nothing (I19), which the verdict checks.
 */
const TABLE_LANE_TABLES: readonly string[] = SHAPES.filter((s) => s.name === 'composite').map((s) => s.table);
const TABLES = [...SHAPES.map((s) => s.table), APPEND_TABLE];
const READERS = 2;
/** Keys per `rows/lookup` of the final check. */
const LOOKUP_CHUNK = 100;
const LOCK_DURATION_MS = 2_000;
const STALLED_INTERVAL_MS = 1_000;
/**
 * Every process reads the fault plan when it starts, so the plan's clock starts before
 * they do; this is how long they get to start before the first fault. Clients write from
 * the moment the API answers. A start slower than this only moves store faults into it.
 * Three processes start in about 4 s on an idle machine and 9 s on a loaded one.
 */
const STARTUP_LEAD_MS = 12_000;
/** How long a fault aimed at an optimizing worker waits for one to start an optimize. */
const OPTIMIZER_WAIT_MS = 5_000;

/**
 * Every process runs with these. Short locks and a short GC grace, so a stopped worker's
 * job is redelivered and GC removes what the redelivered run committed while the zombie
 * sleeps; cooldowns short enough that a merge failed by injected faults is tried again
 * within the settle time; the sampler every second and a short seal watch (twice the put
 * timeout, the least accepted), so lost work is re-created quickly.
 */
const SETTINGS: Record<string, string> = {
  SLUICE_LOCK_DURATION_MS: String(LOCK_DURATION_MS),
  SLUICE_STALLED_INTERVAL_MS: String(STALLED_INTERVAL_MS),
  SLUICE_GC_GRACE_SECONDS: '3',
  SLUICE_SAMPLER_INTERVAL_SECONDS: '1',
  SLUICE_COOLDOWN_BASE_SECONDS: '1',
  SLUICE_COOLDOWN_MAX_SECONDS: '2',
  SLUICE_WAL_PUT_TIMEOUT_MS: '3000',
  SLUICE_LOST_SEAL_SECONDS: '6',
  SLUICE_WAL_HOLE_TIMEOUT_MS: '5000',
  SLUICE_REQUEST_TIMEOUT_MS: '8000',
  SLUICE_SHUTDOWN_GRACE_SECONDS: '2',
  // BullMQ fails a job that stalled this often, and a flush failed so is fail-stop (a crash
  // loop on one generation). The run stops workers on purpose dozens of times, so a flush
  // can stall that often with no fault of its own; the guard is tested on its own
  // (test/integration/redis-drift.test.ts).
  SLUICE_MAX_STALLED_COUNT: '1000',
};

export interface ChaosOptions {
  seed: number;
  /** Length of the fault window; clients write throughout it. */
  seconds: number;
  clients: number;
  /** How long the pipeline may take, once faults stop, to flush and merge everything. */
  settleSeconds: number;
  /** A file store (faults injected in each process), or the S3 test server (faults injected there, so Lance meets them). */
  store: ChaosStoreKind;
  progress: (line: string) => void;
}

/** The checker's counts, with what the run itself counted. */
export interface ChaosSummary extends Omit<Verdict, 'problems'> {
  seed: number;
  store: ChaosStoreKind;
  seconds: number;
  requests: number;
  writes: number;
  acked: number;
  faults: Record<FaultKind, number>;
  /** Processes that ended without being killed: not a violation of the checks, but worth reading. */
  crashed: number;
  /** Key observations and counts of reads checked against the history: during the run and at the end. */
  readsChecked: number;
  readViolations: number;
  /** Reads during the run that got no usable answer (a 503 while a process was down, say), by answer. */
  readFailures: Record<string, number>;
  /** Rows compared directly in the base with LanceDB at the recorded version, and what differed. */
  baseRowsChecked: number;
  baseViolations: number;
  keyShapes: string[];
  /** Append requests to the append-only table, and its rows and counts checked during the run, at the end and in the base. */
  appends: number;
  appendRowsChecked: number;
  appendViolations: number;
  /** When the append-only table's schema change was acked, in ms from the start. */
  schemaChangedAtMs: number;
  /** Faults injected on the base's own objects, which Lance reads and writes itself. */
  lanceFaults: number;
  violations: number;
}

export interface ChaosResult {
  summary: ChaosSummary;
  problems: string[];
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { seed, progress } = options;
  const schedule = scheduleOf(seed, options.seconds);
  progress(
    `seed ${seed} on ${options.store}: ${JSON.stringify(faultCounts(schedule))} over ${options.seconds} s`,
  );
  const dir = await createTempDir('chaos');
  const tokens = testTokens();
  const startedAt = Date.now();
  const store = await chaosStore(options.store, dir.path, startedAt, schedule.storeEpisodes);
  const cluster = await ChaosCluster.start({
    dir: dir.path,
    tokensEnv: tokens.env,
    store,
    processes: PROCESSES,
    settings: SETTINGS,
  }).catch(async (err: unknown) => {
    await store.stop();
    throw err;
  });
  const api = apiClient(cluster.apiUrl, tokens.all);
  const run: Run = { options, schedule, cluster, api, startedAt, startedAtMono: performance.now() };
  const writes: WriteRecord[] = [];
  const reads: ReadRecord[] = [];
  const readFailures: Record<string, number> = {};
  let verdict: Verdict;
  let readVerdict: ReadVerdict;
  let during: Attack;
  let appendVerdict: AppendVerdict;
  const base = { rows: 0, problems: [] as string[] };
  let lanceFaults = 0;
  let clean = false;
  try {
    for (const shape of SHAPES) await run.api.createTable(shape);
    await run.api.createAppendTable();
    progress(`cluster up after ${Date.now() - startedAt} ms at ${cluster.apiUrl}; store in ${dir.path}`);
    during = await attack(run, tokens.all);
    writes.push(...during.writes);
    reads.push(...during.reads);
    Object.assign(readFailures, during.readFailures);
    progress(
      `faults over; ${writes.length} writes, ${reads.length} reads; waiting up to ${options.settleSeconds} s to settle`,
    );
    await settle(run);
    progress(`answers: ${JSON.stringify(answerCounts(writes))}`);
    progress(`read failures: ${JSON.stringify(readFailures)}`);
    progress(`sampler Job Schedulers in Redis: ${await cluster.samplerSchedulers()}`);
    const final = await finalState(run);
    verdict = checkHistory(writes, final);
    reads.push(...(await finalReads(run)));
    readVerdict = checkReads(writes, reads);
    for (const shape of SHAPES) {
      const rows = final.rows.filter((r) => r.k.startsWith(`${shape.table}:`));
      const checked = await checkBase(cluster.config(), shape, rows);
      base.rows += checked.rows;
      base.problems.push(...checked.problems);
    }
    const lastScan = {
      kind: 'scan' as const,
      startedAt: Number.POSITIVE_INFINITY,
      endedAt: Number.POSITIVE_INFINITY,
    };
    const finalAppends = { ...lastScan, ...(await scanAll({ apiUrl: cluster.apiUrl, token: tokens.all })) };
    appendVerdict = checkAppends(during.appends, [...during.appendReads, finalAppends], during.changeAckedAt);
    const appendBase = await checkAppendBase(cluster.config(), finalAppends.seen);
    base.rows += appendBase.rows;
    base.problems.push(...appendBase.problems);
    lanceFaults = await store.lanceFaults();
    clean =
      violations(verdict) + readVerdict.violations + appendVerdict.violations + base.problems.length === 0;
  } finally {
    await cluster.close();
    await store.stop();
    for (const crash of cluster.crashes) progress(`crash: ${crash}`);
    if (clean) await dir.cleanup();
    else progress(`kept the store, fault plan and process logs in ${dir.path}`);
  }
  const { problems, ...counts } = verdict;
  return {
    summary: {
      seed,
      store: options.store,
      seconds: options.seconds,
      requests: writes.reduce((sum, w) => sum + w.attempts.length, 0),
      writes: writes.length,
      acked: writes.filter((w) => w.outcome === 'acked').length,
      faults: faultCounts(schedule),
      ...counts,
      crashed: cluster.crashes.length,
      readsChecked: readVerdict.checked,
      readViolations: readVerdict.violations,
      readFailures,
      baseRowsChecked: base.rows,
      baseViolations: base.problems.length,
      keyShapes: SHAPES.map((s) => s.name),
      appends: during.appends.length,
      appendRowsChecked: appendVerdict.checked,
      appendViolations: appendVerdict.violations,
      schemaChangedAtMs: Math.round(during.changeAckedAt - run.startedAtMono),
      lanceFaults,
      violations:
        violations(verdict) + readVerdict.violations + appendVerdict.violations + base.problems.length,
    },
    problems: [...problems, ...readVerdict.problems, ...appendVerdict.problems, ...base.problems],
  };
}

interface Run {
  options: ChaosOptions;
  schedule: ChaosSchedule;
  cluster: ChaosCluster;
  api: ApiClient;
  startedAt: number;
  /** `startedAt` on the clock the history's times are on (`performance.now()`). */
  startedAtMono: number;
}

/** What happened while the faults struck. */
interface Attack {
  writes: WriteRecord[];
  reads: ReadRecord[];
  readFailures: Record<string, number>;
  appends: AppendRecord[];
  appendReads: AppendRead[];
  /** When the schema change of the append-only table was acked (`performance.now()`). */
  changeAckedAt: number;
}

/** Clients write and readers read while the process faults strike on time (the store faults strike in the processes). */
async function attack(run: Run, token: string): Promise<Attack> {
  const { options, schedule, cluster, startedAt } = run;
  const writes: WriteRecord[] = [];
  const reads: ReadRecord[] = [];
  const readFailures: Record<string, number> = {};
  const appends: AppendRecord[] = [];
  const appendReads: AppendRead[] = [];
  const failed = (answer: string) => {
    readFailures[answer] = (readFailures[answer] ?? 0) + 1;
  };
  let changeAckedAt = Number.POSITIVE_INFINITY;
  let stopped = false;
  const clients = Array.from({ length: options.clients }, (_, client) =>
    runClient({
      client,
      apiUrl: cluster.apiUrl,
      token,
      shapes: SHAPES,
      random: seededRandom(options.seed * 1_000 + client + 1),
      stopped: () => stopped,
      record: (write) => writes.push(write),
    }),
  );
  const readers = Array.from({ length: READERS }, (_, reader) =>
    runReader({
      apiUrl: cluster.apiUrl,
      token,
      shapes: SHAPES,
      random: seededRandom(options.seed * 1_000 + 500 + reader),
      stopped: () => stopped,
      record: (read) => reads.push(read),
      failed,
    }),
  );
  const appending = [
    runAppender({
      apiUrl: cluster.apiUrl,
      token,
      random: seededRandom(options.seed * 1_000 + 700),
      stopped: () => stopped,
      changed: () => changeAckedAt !== Number.POSITIVE_INFINITY,
      record: (append) => appends.push(append),
    }),
    runAppendReader({
      apiUrl: cluster.apiUrl,
      token,
      random: seededRandom(options.seed * 1_000 + 701),
      stopped: () => stopped,
      record: (read) => appendReads.push(read),
      failed,
    }),
    // A third of the way in, while the faults strike, the append-only table's schema changes.
    sleep(startedAt + STARTUP_LEAD_MS + (options.seconds * 1000) / 3 - Date.now())
      .then(() => run.api.changeAppendSchema())
      .then(() => {
        changeAckedAt = performance.now();
        options.progress(
          `t=${((Date.now() - startedAt) / 1000).toFixed(1)}s schema of ${APPEND_TABLE} changed`,
        );
      }),
  ];
  const pauses: Array<Promise<void>> = [];
  let previous = { atMs: 0, doneAt: startedAt };
  for (const fault of schedule.processFaults) {
    // A restart that took long delays the faults after it, but never squeezes their gaps.
    await sleep(Math.max(startedAt + fault.atMs, previous.doneAt + fault.atMs - previous.atMs) - Date.now());
    options.progress(`t=${((Date.now() - startedAt) / 1000).toFixed(1)}s ${describeFault(fault)}`);
    if (fault.kind === 'kill') {
      await cluster.kill(fault.target);
      await sleep(fault.restartAfterMs);
      await cluster.spawn(fault.target);
    } else if (fault.kind === 'stop') {
      pauses.push(cluster.pause(fault.target, fault.forMs));
    } else if (fault.kind === 'killOptimizer' || fault.kind === 'stopOptimizer') {
      const target = await cluster.nextToLog(
        WORKERS,
        (line) => line.msg === 'optimize started',
        OPTIMIZER_WAIT_MS,
      );
      options.progress(target ? `  … ${target} is optimizing` : '  … no optimize started; nothing done');
      if (target && fault.kind === 'killOptimizer') {
        await cluster.kill(target);
        await sleep(fault.restartAfterMs);
        await cluster.spawn(target);
      } else if (target && fault.kind === 'stopOptimizer') {
        pauses.push(cluster.pause(target, fault.forMs));
      }
    } else {
      await cluster.restartRedis();
    }
    previous = { atMs: fault.atMs, doneAt: Date.now() };
  }
  await sleep(startedAt + STARTUP_LEAD_MS + options.seconds * 1000 - Date.now());
  stopped = true;
  await Promise.all([...clients, ...readers, ...appending, ...pauses]);
  await cluster.heal(PROCESSES);
  return { writes, reads, readFailures, appends, appendReads, changeAckedAt };
}

/** Waits, with no new writes, until nothing is left to seal, flush or merge, or the settle time is up. */
async function settle(run: Run): Promise<void> {
  const began = Date.now();
  for (let polls = 0; ; polls += 1) {
    const shards = await run.api.shards();
    if (settled(shards) || Date.now() - began >= run.options.settleSeconds * 1000) break;
    if (polls % 5 === 0) run.options.progress(`settling: ${backlog(shards)}`);
    await sleep(1_000);
  }
  run.options.progress(`settle wait ended after ${Date.now() - began} ms`);
}

/** What is left to do, so a slow settle can be told from a stuck one. */
function backlog(shards: readonly ShardView[]): string {
  const sum = (count: (s: ShardView) => number) => shards.reduce((total, s) => total + count(s), 0);
  const unsealed = sum((s) => s.unsealedEntries);
  const sealed = sum((s) => s.sealed.length);
  const unmerged = sum((s) => s.currentGeneration - 1 - s.mergedThrough);
  return `${unsealed} unsealed WAL entries, ${sealed} sealed and ${unmerged} unmerged generations`;
}

/**
 * The shards as the settle left them, which the checks judge, and the rows. A poisoned
 * shard refuses reads (I7), so it is reopened first and the run settles again: reopen
 * loses nothing (I8), so the rows can still be checked.
 */
async function finalState(run: Run): Promise<FinalState> {
  const shards = await run.api.shards();
  const poisoned = shards.filter((s) => s.poison !== null);
  if (poisoned.length > 0) {
    run.options.progress(
      `reopening poisoned shards ${poisoned.map((s) => `${s.table}/${s.shard}`).join(', ')} to read their rows`,
    );
    for (const view of poisoned) await run.api.reopen(view);
    await settle(run);
  }
  return {
    shards,
    rows: await run.api.rows(),
    deadLetters: await run.api.deadLetters(),
    atomicTables: TABLE_LANE_TABLES,
  };
}

/** After the run settled: every key of every table through a lookup of many, and each table's count. */
async function finalReads(run: Run): Promise<ReadRecord[]> {
  const reads: ReadRecord[] = [];
  for (const shape of SHAPES) {
    for (let at = 0; at < shape.keys.length; at += LOOKUP_CHUNK) {
      const keys = shape.keys.slice(at, at + LOOKUP_CHUNK);
      const startedAt = performance.now();
      const found = await run.api.lookup(shape, keys);
      const seen = [
        ...found.rows.map((row) => finalRow(shape, row)),
        ...found.missing.map((k) => ({ k: shape.idOf(k), v: null })),
      ];
      reads.push({
        kind: 'lookupMany',
        table: shape.table,
        startedAt,
        endedAt: performance.now(),
        seen,
        duplicates: [],
      });
    }
    const startedAt = performance.now();
    const rows = await run.api.count(shape);
    const keys = shape.keys.map((k) => shape.idOf(k));
    reads.push({
      kind: 'count',
      table: shape.table,
      startedAt,
      endedAt: performance.now(),
      seen: [],
      duplicates: [],
      count: { rows, keys },
    });
  }
  return reads;
}

/** How many attempts got each answer: an HTTP status with its error code, or the client-side error. */
function answerCounts(writes: readonly WriteRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, error } of writes.flatMap((w) => w.attempts)) {
    const answer = [status, error].filter((part) => part !== null && part !== undefined).join(' ');
    counts[answer] = (counts[answer] ?? 0) + 1;
  }
  return counts;
}

/** The faults a run of `seconds` with this seed suffers. */
export function scheduleOf(seed: number, seconds: number): ChaosSchedule {
  return chaosSchedule(seed, {
    leadMs: STARTUP_LEAD_MS,
    windowMs: seconds * 1000,
    minStopMs: LOCK_DURATION_MS + STALLED_INTERVAL_MS,
  });
}

function describeFault(fault: ProcessFault): string {
  if (fault.kind === 'kill') return `kill -9 ${fault.target}, restart after ${fault.restartAfterMs} ms`;
  if (fault.kind === 'stop') return `SIGSTOP ${fault.target} for ${fault.forMs} ms`;
  if (fault.kind === 'killOptimizer')
    return `kill -9 the next worker to optimize, restart after ${fault.restartAfterMs} ms`;
  if (fault.kind === 'stopOptimizer') return `SIGSTOP the next worker to optimize for ${fault.forMs} ms`;
  return 'kill -9 redis-server, restart it empty';
}

/** Nothing left to seal, flush or merge, and no shard poisoned: waiting longer would change nothing. */
function settled(shards: ShardView[]): boolean {
  return checkHistory([], { rows: [], shards, deadLetters: 0 }).problems.length === 0;
}

type ApiClient = ReturnType<typeof apiClient>;

/** Optimizes often, so workers are killed and stopped in the middle of them too. */
const TABLE_SETTINGS = {
  mergeAfterGenerations: 4,
  mergeAfterSeconds: 1,
  maxGenerationsPerMerge: 64,
  optimizeAfterMerges: 2,
};

/** The few calls the run makes besides the clients' writes; each retried until the API answers. */
function apiClient(apiUrl: string, token: string) {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    let last = '';
    for (let attempt = 0; attempt < 60; attempt += 1) {
      try {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const answer = await response.json();
        if (response.ok || (response.status === 409 && method === 'POST')) return answer;
        last = `${response.status} ${JSON.stringify(answer)}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(500);
    }
    throw new Error(`${method} ${path} never succeeded: ${last}`);
  };
  return {
    async createTable(shape: KeyShape): Promise<void> {
      await call('POST', '/v1/tables', {
        name: shape.table,
        schema: { fields: shape.schema.fields },
        primaryKey: shape.schema.primaryKey,
        shards: SHARDS,
        settings: TABLE_SETTINGS,
        ...(TABLE_LANE_TABLES.includes(shape.table) ? { walLane: 'table' } : {}),
      });
    },
    async createAppendTable(): Promise<void> {
      await call('POST', '/v1/tables', {
        name: APPEND_TABLE,
        schema: appendSchema,
        shards: SHARDS,
        settings: TABLE_SETTINGS,
      });
    },
    async changeAppendSchema(): Promise<void> {
      await call('POST', `/v1/tables/${APPEND_TABLE}/columns`, schemaChange);
    },
    async shards(): Promise<ShardView[]> {
      const shards: ShardView[] = [];
      for (const table of TABLES) {
        for (let shard = 0; shard < SHARDS; shard += 1) {
          shards.push((await call('GET', `/v1/tables/${table}/shards/${shard}`)) as ShardView);
        }
      }
      return shards;
    },
    async reopen(view: ShardView): Promise<void> {
      await call('POST', `/v1/tables/${view.table}/shards/${view.shard}/reopen`);
    },
    async rows(): Promise<FinalRow[]> {
      const rows: FinalRow[] = [];
      for (const shape of SHAPES) {
        let after: string | null = null;
        do {
          const page = (await call(
            'GET',
            `/v1/tables/${shape.table}/rows?limit=256${after ? `&after=${encodeURIComponent(after)}` : ''}`,
          )) as { rows: Record<string, unknown>[]; next: string | null };
          rows.push(...page.rows.map((row) => finalRow(shape, row)));
          after = page.next;
        } while (after !== null);
      }
      return rows;
    },
    async lookup(shape: KeyShape, keys: readonly unknown[]) {
      return (await call('POST', `/v1/tables/${shape.table}/rows/lookup`, { keys })) as {
        rows: Record<string, unknown>[];
        missing: KeyInput[];
      };
    },
    async count(shape: KeyShape): Promise<number> {
      return ((await call('GET', `/v1/tables/${shape.table}/rows/count`)) as { rows: number }).rows;
    },
    async deadLetters(): Promise<number> {
      let count = 0;
      let after: string | null = null;
      do {
        const page = (await call(
          'GET',
          `/v1/dead-letters?limit=256${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        )) as { items: unknown[]; next: string | null };
        count += page.items.length;
        after = page.next;
      } while (after !== null);
      return count;
    },
  };
}

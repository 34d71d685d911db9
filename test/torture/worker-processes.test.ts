import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { isSluiceError } from '../../shared/errors.ts';
import { assertFlushedExactlyOnce, drained } from '../support/flushed.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { seededRandom } from '../support/random.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';
import { childEnv, flushIntervals, spawnWorker, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Writes batches of `size` rows with unique ids, `concurrency` at a time, at least `batches`
 * of them and on until `until()` holds; returns the acked rows.
 */
async function load(
  h: Harness,
  table: string,
  batches: number,
  size: number,
  concurrency: number,
  until: () => boolean = () => true,
): Promise<JsonRow[]> {
  const acked: JsonRow[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches || !until()) {
        const i = next++;
        const rows = eventRows(i * size + 1, i * size + size);
        await writeWithRetry(h, table, rows);
        acked.push(...rows);
      }
    }),
  );
  return acked.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Writes as a well-behaved client does: on BACKPRESSURE it waits as told and tries again. */
async function writeWithRetry(h: Harness, table: string, rows: JsonRow[]): Promise<void> {
  for (;;) {
    try {
      await writeRows(h.sluice, table, rows);
      return;
    } catch (err) {
      if (!isSluiceError(err, 'BACKPRESSURE')) throw err;
      await sleep(Number(err.details.retryAfterSeconds ?? 1) * 100);
    }
  }
}

function assertNoOverlap(workers: WorkerProcess[]) {
  const intervals = flushIntervals(workers.flatMap((w) => w.lines));
  expect(intervals.size).toBeGreaterThan(0);
  for (const [target, list] of intervals) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const previous = sorted[i - 1]!;
      const current = sorted[i]!;
      expect(
        current.start >= previous.end,
        `${target}: flushes overlap ${JSON.stringify([previous, current])}`,
      ).toBe(true);
    }
  }
  return intervals;
}

describe('worker processes (torture)', () => {
  let h: Harness;
  const workers: WorkerProcess[] = [];

  beforeEach(async () => {
    h = await createHarness({
      workers: { lockDurationMs: 2_000, stalledIntervalMs: 1_000, shutdownGraceSeconds: 5 },
    });
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await h.close();
  });

  it('I12: two worker processes never flush one shard at once, and order holds', async () => {
    await h.createTable(eventsTable('pair', { shards: 2, settings: { sealDelayMs: 5 } }));
    workers.push(await spawnWorker(childEnv(h.config)), await spawnWorker(childEnv(h.config)));
    const acked = await load(h, 'pair', 150, 10, 8);
    await drained(h, 'pair', 2);
    const intervals = assertNoOverlap(workers);
    const pids = new Set([...intervals.values()].flat().map((i) => i.pid));
    expect(pids.size).toBe(2);
    await assertFlushedExactlyOnce(h, 'pair', 2, acked);
  });

  // Four kills, each waiting out a lock expiry and a worker start-up: minutes on a loaded machine.
  it('I2/I11: kill -9 of a worker in the middle of flushes loses and doubles nothing', {
    timeout: 180_000,
  }, async () => {
    const seed = Number(process.env.SLUICE_TORTURE_SEED ?? Date.now() % 1_000_000);
    console.log(`kill -9 torture seed: ${seed} (rerun with SLUICE_TORTURE_SEED=${seed})`);
    const random = seededRandom(seed);
    await h.createTable(eventsTable('killed', { shards: 2, settings: { sealDelayMs: 5 } }));
    workers.push(await spawnWorker(childEnv(h.config)), await spawnWorker(childEnv(h.config)));
    let killing = true;
    const writing = load(h, 'killed', 200, 10, 4, () => !killing);
    for (let kill = 0; kill < 4; kill++) {
      const seen = new Map(workers.map((w) => [w, w.lines.length]));
      const victim = await waitFor(
        () => workers.find((w) => w.lines.slice(seen.get(w)).some((line) => line.msg === 'flush started')),
        { message: 'a flush to start', timeoutMs: 45_000 },
      );
      await sleep(Math.floor(random() * 15));
      await victim.stop('SIGKILL');
      workers.splice(workers.indexOf(victim), 1);
      workers.push(await spawnWorker(childEnv(h.config)));
    }
    killing = false;
    const acked = await writing;
    await drained(h, 'killed', 2);
    await assertFlushedExactlyOnce(h, 'killed', 2, acked);
  });
});

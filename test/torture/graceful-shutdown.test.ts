/**
 * Graceful shutdown of a worker process (SIGTERM in the middle of a flush): it stops taking
 * jobs, finishes the active flush within `shutdownGraceSeconds` — or, past the grace
 * period, hands it back to the queue — and exits 0. A second worker then finishes the rest,
 * and every acked row is flushed exactly once (I2, I3, I11). The flush is slowed by nothing
 * but its size: each shard's WAL holds one large generation, written before any worker runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { assertFlushedExactlyOnce, drained } from '../support/flushed.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import type { LogLine } from '../support/logged-process.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';
import { childEnv, spawnWorker, type WorkerProcess } from '../support/worker-process.ts';

const SHARDS = 2;
/** Each write puts about BATCH / SHARDS rows in each shard's WAL: one generation apiece. */
const BATCH = 6_000;
const WRITES = 30;

let h: Harness;
const workers: WorkerProcess[] = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
  await h.close();
});

async function setUp(graceSeconds: number): Promise<{ acked: JsonRow[]; env: NodeJS.ProcessEnv }> {
  h = await createHarness({
    workers: { lockDurationMs: 2_000, stalledIntervalMs: 1_000, shutdownGraceSeconds: graceSeconds },
  });
  await h.createTable(
    eventsTable('big', { shards: SHARDS, settings: { sealDelayMs: 0, maxGenerationRows: BATCH * 0.75 } }),
  );
  const acked: JsonRow[] = [];
  for (let write = 0; write < WRITES; write++) {
    const rows = eventRows(write * BATCH + 1, (write + 1) * BATCH);
    await writeRows(h.sluice, 'big', rows);
    acked.push(...rows);
  }
  // One flush at a time per process, so the second shard's flush is still waiting at SIGTERM.
  const env = childEnv(h.config, { SLUICE_FLUSH_CONCURRENCY: '1' });
  return { acked, env };
}

/** The first worker's SIGTERM, sent the moment its first flush starts. */
async function terminateDuringFlush(worker: WorkerProcess) {
  const started = await worker.waitForLine((l) => l.msg === 'flush started', 'a flush to start', 30_000);
  const signalledAt = Date.now();
  worker.child.kill('SIGTERM');
  const code = await worker.exited;
  return { started, code, exitMs: Date.now() - signalledAt };
}

function linesAfter(worker: WorkerProcess, msg: string): LogLine[] {
  const at = worker.lines.findIndex((l) => l.msg === msg);
  return at === -1 ? [] : worker.lines.slice(at + 1);
}

describe('graceful shutdown of a worker process (torture)', () => {
  it('SIGTERM during a flush: stops taking jobs, finishes the flush within the grace period, exits 0', async () => {
    const { acked, env } = await setUp(20);
    const first = await spawnWorker(env);
    workers.push(first);
    const { started, code, exitMs } = await terminateDuringFlush(first);
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(20_000);
    const afterStop = linesAfter(first, 'stopping workers');
    // The active flush ended after the signal, and no other job started.
    expect(afterStop.some((l) => l.msg === 'flush ended' && l.jobId === started.jobId)).toBe(true);
    expect(afterStop.filter((l) => l.msg === 'flush started')).toEqual([]);
    const firstShard = started.shard as number;
    const flushedFirst = await h.sluice.shards.stats('big', firstShard);
    expect([flushedFirst.committed.length, flushedFirst.sealed.length]).toEqual([WRITES, 0]);

    const second = await spawnWorker(env);
    workers.push(second);
    await drained(h, 'big', SHARDS, 30_000);
    const flushedBySecond = second.lines.filter((l) => l.msg === 'flush started').map((l) => l.shard);
    expect(flushedBySecond).toContain(1 - firstShard);
    await assertFlushedExactlyOnce(h, 'big', SHARDS, acked, 20_000);
  });

  it('SIGTERM during a flush longer than the grace period: hands the flush back, exits 0, another worker finishes it', async () => {
    const { acked, env } = await setUp(0);
    const first = await spawnWorker(env);
    workers.push(first);
    const { started, code, exitMs } = await terminateDuringFlush(first);
    expect(code).toBe(0);
    // The flush of 15 generations takes well over a second; the process left long before it ended.
    expect(exitMs).toBeLessThan(1_000);
    expect(first.lines.some((l) => l.msg === 'flush ended' && l.jobId === started.jobId)).toBe(false);
    expect(first.lines).toContainEqual(
      expect.objectContaining({ msg: 'shutdown grace period over: job handed back', jobId: started.jobId }),
    );

    const second = await spawnWorker(env);
    workers.push(second);
    await drained(h, 'big', SHARDS, 30_000);
    const shards = second.lines.filter((l) => l.msg === 'flush ended').map((l) => l.shard);
    expect(shards).toContain(started.shard);
    await assertFlushedExactlyOnce(h, 'big', SHARDS, acked, 20_000);
  });
});

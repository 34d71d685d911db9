import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { walRedisRoundTrips } from '../../shared/metrics.ts';
import { walKey, walPrefix } from '../../shared/table/paths.ts';
import type { AppendResult } from '../../shared/wal/append.ts';
import { decodeWalEntry } from '../../shared/wal/wal-entry.ts';
import { type ConfigOverrides, createHarness, type Harness } from '../support/harness.ts';
import { prefixGlob } from '../support/key-globs.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const WAL_PUTS = `${prefixGlob(walPrefix, '*', '*')}*`;

/** The ids in the WAL entry `seq` of shard 0, or null when there is no entry. */
async function entryIds(h: Harness, table: string, seq: number): Promise<number[] | null> {
  const object = await h.store.inner.get(walKey(table, 0, seq));
  if (!object) return null;
  const entry = decodeWalEntry(object.body, seq);
  if (entry.kind === 'hole') return [];
  const def = await h.sluice.tables.describe(table);
  return tableToJsonRows(def.schema, entry.table.select(['id', 'name', 'value'])).map((r) => r.id as number);
}

async function roundTrips(): Promise<Record<string, number>> {
  const { values } = await walRedisRoundTrips.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.step), v.value]));
}

function tripsSince(before: Record<string, number>, after: Record<string, number>) {
  const step = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  return {
    allocate: step('allocate'),
    complete: step('complete'),
    sealRequest: step('seal_request'),
    total: step('allocate') + step('complete') + step('seal_request') + step('abandon'),
  };
}

/** Ten-row writes w0, w1, … of distinct keys. */
function rowsOf(write: number) {
  return eventRows(write * 10 + 1, write * 10 + 10);
}

function idsOf(...writes: number[]): number[] {
  return writes.flatMap((w) => rowsOf(w).map((r) => r.id as number));
}

describe('group commit without a window', () => {
  let h: Harness;

  async function open(
    wal: NonNullable<ConfigOverrides>['wal'],
    table: string,
    settings: Record<string, unknown> = {},
  ): Promise<number> {
    h = await createHarness({ wal });
    await h.createTable(eventsTable(table, { settings }));
    return h.store.calls.putIfAbsent;
  }

  afterEach(() => h.close());

  it('a write to an idle shard puts at once; writes arriving meanwhile share the next entry', async () => {
    const before = await open({ groupCommit: true }, 'idle');
    h.store.inject({ op: 'putIfAbsent', key: WAL_PUTS, latencyMs: 150 });
    const first = writeRows(h.sluice, 'idle', rowsOf(0));
    await waitFor(() => h.store.calls.putIfAbsent === before + 1, { message: 'the first put started' });
    const later = [1, 2, 3, 4, 5].map((w) => writeRows(h.sluice, 'idle', rowsOf(w)));
    const acks = await Promise.all([first, ...later]);
    expect(acks.map((a) => a.shards[0]!.seq)).toEqual([1, 2, 2, 2, 2, 2]);
    expect(await entryIds(h, 'idle', 1)).toEqual(idsOf(0));
    expect(await entryIds(h, 'idle', 2)).toEqual(idsOf(1, 2, 3, 4, 5));
    expect(h.store.calls.putIfAbsent - before).toBe(2);
  });

  it('puts to one shard pipeline up to maxPutsInFlight, and what arrives beyond waits for the next', async () => {
    const before = await open({ groupCommit: true, maxPutsInFlight: 3, pipelineMinBytes: 1 }, 'pipe');
    h.store.inject({ op: 'putIfAbsent', key: WAL_PUTS, latencyMs: 300 });
    const writes: Promise<AppendResult>[] = [];
    for (let w = 0; w < 3; w++) {
      writes.push(writeRows(h.sluice, 'pipe', rowsOf(w)));
      await waitFor(() => h.store.calls.putIfAbsent === before + w + 1, { message: `put ${w + 1} started` });
    }
    // Three puts in flight: these seven share the fourth entry, which starts when one lands.
    for (let w = 3; w < 10; w++) writes.push(writeRows(h.sluice, 'pipe', rowsOf(w)));
    const acks = await Promise.all(writes);
    expect(acks.map((a) => a.shards[0]!.seq)).toEqual([1, 2, 3, 4, 4, 4, 4, 4, 4, 4]);
    expect(await entryIds(h, 'pipe', 4)).toEqual(idsOf(3, 4, 5, 6, 7, 8, 9));
    expect(await readAll(h.sluice, 'pipe')).toEqual(eventRows(1, 100));
  });

  /**
   * w0 puts alone on a store whose WAL puts take `latencyMs`; w1 and w2 arrive while it is in
   * flight. Tells whether w0 was acked when the second put started, and the acks' seqs.
   */
  async function groupBehindPut(table: string, pipelineWaitMs: number, latencyMs: number) {
    const before = await open({ groupCommit: true, pipelineWaitMs }, table);
    h.store.inject({ op: 'putIfAbsent', key: WAL_PUTS, latencyMs });
    let firstAcked = false;
    const first = writeRows(h.sluice, table, rowsOf(0)).then((ack) => {
      firstAcked = true;
      return ack;
    });
    await waitFor(() => h.store.calls.putIfAbsent === before + 1, { message: 'the first put started' });
    const waiting = [1, 2].map((w) => writeRows(h.sluice, table, rowsOf(w)));
    await waitFor(() => h.store.calls.putIfAbsent === before + 2, { message: 'the waiting group put' });
    const firstAckedBeforeSecondPut = firstAcked;
    const acks = await Promise.all([first, ...waiting]);
    return { firstAckedBeforeSecondPut, seqs: acks.map((a) => a.shards[0]!.seq) };
  }

  it('a group that has waited pipelineWaitMs behind a slow put gets a put of its own', async () => {
    const { firstAckedBeforeSecondPut, seqs } = await groupBehindPut('slow', 50, 400);
    expect(firstAckedBeforeSecondPut).toBe(false);
    expect(seqs).toEqual([1, 2, 2]);
    expect(await entryIds(h, 'slow', 2)).toEqual(idsOf(1, 2));
  });

  it('a group waits for the running put while it has waited less than pipelineWaitMs', async () => {
    const { firstAckedBeforeSecondPut, seqs } = await groupBehindPut('patient', 60_000, 200);
    expect(firstAckedBeforeSecondPut).toBe(true);
    expect(seqs).toEqual([1, 2, 2]);
  });

  it('I1: a put that fails mid-pipeline acks none of its writes, and every acked write is in its entry', async () => {
    const before = await open({ groupCommit: true, maxPutsInFlight: 2, pipelineMinBytes: 1 }, 'fails');
    h.store.inject({ op: 'putIfAbsent', key: WAL_PUTS, latencyMs: 150 });
    // The put fails, and so does the writer's tombstone that would settle it: its outcome stays unknown.
    h.store.inject({ op: 'putIfAbsent', key: walKey('fails', 0, 2), fault: 'fail', times: 2 });
    const settled: Promise<PromiseSettledResult<AppendResult>[]>[] = [];
    settled.push(Promise.allSettled([writeRows(h.sluice, 'fails', rowsOf(0))]));
    await waitFor(() => h.store.calls.putIfAbsent === before + 1, { message: 'put 1 started' });
    settled.push(Promise.allSettled([1, 2, 3].map((w) => writeRows(h.sluice, 'fails', rowsOf(w)))));
    await waitFor(() => h.store.calls.putIfAbsent === before + 2, { message: 'put 2 started' });
    settled.push(Promise.allSettled([4, 5].map((w) => writeRows(h.sluice, 'fails', rowsOf(w)))));
    const results = (await Promise.all(settled)).flat();

    // Writes 1–3 reach the shard over a few turns (each reads the table first), so put 2
    // carries the first to arrive and maybe all three; whoever it carried is refused.
    const acked = results.flatMap((r, w) =>
      r.status === 'fulfilled' ? [{ w, seq: r.value.shards[0]!.seq }] : [],
    );
    const refused = results.flatMap((r, w) => (r.status === 'rejected' ? [{ w, reason: r.reason }] : []));
    expect(acked[0]).toEqual({ w: 0, seq: 1 });
    expect(refused.length).toBeGreaterThan(0);
    for (const { w } of refused) expect([1, 2, 3]).toContain(w);
    for (const { reason } of refused) expect(reason).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(acked.map((a) => a.seq)).not.toContain(2);
    for (const { w, seq } of acked)
      expect(await entryIds(h, 'fails', seq)).toEqual(expect.arrayContaining(idsOf(w)));
    expect(await entryIds(h, 'fails', 2)).toBeNull();
    // The failed seq was abandoned, so the seal tombstones it at once and moves past it.
    const sealed = await h.sluice.shards.seal('fails', 0);
    expect(sealed.holes).toEqual([2]);
    expect((await readAll(h.sluice, 'fails')).map((r) => r.id)).toEqual(idsOf(...acked.map((a) => a.w)));
  });

  it('a write whose put outlasts the seal that began meanwhile is sealed without a later write asking', async () => {
    await open({ groupCommit: false }, 'late');
    await writeRows(h.sluice, 'late', rowsOf(0));
    h.store.inject({ op: 'putIfAbsent', key: walKey('late', 0, 3), latencyMs: 400 });
    h.startWorkers();
    // w1 arms the seal; w2 allocates while it is armed, so it asks for none, and lands after
    // the seal that w1 asked for has listed the WAL.
    const [w1, w2] = await Promise.all([
      writeRows(h.sluice, 'late', rowsOf(1)),
      writeRows(h.sluice, 'late', rowsOf(2)),
    ]);
    expect([w1.shards[0]!.seq, w2.shards[0]!.seq]).toEqual([2, 3]);
    await waitFor(async () => (await h.parts.manifests.read('late', 0)).walCursor >= 3, {
      message: 'the late entry in L0',
    });
    expect(await readAll(h.sluice, 'late')).toEqual(eventRows(1, 30));
  });

  it('a lone writer makes one Redis round trip per write on the ack path, and completions ride along', async () => {
    // The default seal delay: one seal request covers the writes of one seal cycle.
    await open({ groupCommit: false }, 'trips', { sealDelayMs: 200 });
    const writes = 20;
    // The first write of a shard also brings Redis in line with the store.
    await writeRows(h.sluice, 'trips', rowsOf(writes));
    const before = await roundTrips();
    for (let w = 0; w < writes; w++) await writeRows(h.sluice, 'trips', rowsOf(w));
    const onAckPath = tripsSince(before, await roundTrips());
    await h.parts.wal.settle();
    const all = tripsSince(before, await roundTrips());
    expect(onAckPath.allocate).toBe(writes);
    // Three per write before: allocate, complete, seal request.
    expect(all.total).toBeLessThanOrEqual(writes * 1.5);
    expect(all.complete + all.sealRequest).toBeLessThan(writes / 2);
    const stats = await h.sluice.shards.stats('trips', 0);
    expect(stats.frontier).toBe(writes + 1);
  });

  it('under steady writes each seal requests the next, so a lone writer asks Redis nothing but its allocations', async () => {
    const sealDelayMs = 50;
    await open({ groupCommit: false }, 'steady', { sealDelayMs });
    h.startWorkers();
    await writeRows(h.sluice, 'steady', rowsOf(0));
    await h.parts.wal.settle();
    const before = await roundTrips();
    const writes = 100;
    // A write acked more than half the seal delay after the one before may have let the
    // shard go quiet: its completions then go on their own, and its seal is asked for anew.
    let pauses = 0;
    let lastAck = performance.now();
    for (let w = 1; w <= writes; w++) {
      await writeRows(h.sluice, 'steady', rowsOf(w));
      if (performance.now() - lastAck > sealDelayMs / 2) pauses++;
      lastAck = performance.now();
    }
    const trips = tripsSince(before, await roundTrips());
    await waitFor(async () => (await h.parts.manifests.read('steady', 0)).walCursor === writes + 1, {
      message: 'every write flushed',
    });
    const seals = (await h.parts.manifests.read('steady', 0)).nextGeneration - 1;
    expect(seals).toBeGreaterThanOrEqual(3);
    expect(trips.allocate).toBe(writes);
    // A writer asks (and sends its completions along) only when a seal caught up with every
    // seq handed out, or the writes paused; it used to ask once per seal. On a loaded
    // machine the writes pause now and then, and each pause may cost a completion and a seal
    // request.
    expect(trips.sealRequest + trips.complete).toBeLessThan(seals / 2 + 2 * pauses);
  });

  it('a seq handed out that never lands keeps no seals coming', async () => {
    await open({ groupCommit: false }, 'gone', { sealDelayMs: 20 });
    h.startWorkers();
    await writeRows(h.sluice, 'gone', rowsOf(0));
    await waitFor(async () => (await h.parts.manifests.read('gone', 0)).walCursor === 1, {
      message: 'the write flushed',
    });
    // The last seq handed out is given up: no entry will ever land at it.
    const gone = await h.parts.seqAllocation.allocate('gone', 0, h.config.limits, 0, { sealDelayMs: 20 });
    if (gone.kind !== 'ok') throw new Error(`allocation refused: ${gone.kind}`);
    await h.parts.seqAllocation.abandon('gone', 0, gone.seq);
    await h.sluice.shards.seal('gone', 0);
    const armed = h.shardKeys('gone', 0).sealArmed;
    // A chain that took the lost seq for work still to seal would keep re-arming, every 20 ms.
    await waitFor(async () => (await h.redis.exists(armed)) === 0, { message: 'the seal disarmed' });
    await sleep(200);
    expect(await h.redis.exists(armed)).toBe(0);
    expect(await h.scheduler.seal.getJobCounts('waiting', 'delayed', 'active')).toEqual({
      waiting: 0,
      delayed: 0,
      active: 0,
    });
  });

  it('without group commit, a shard whose put outlasts the idle wait keeps its completions for the next allocation', async () => {
    // A long seal delay: the first write arms the only seal, so no seal request carries completions.
    await open({ groupCommit: false }, 'slow', { sealDelayMs: 10_000 });
    await writeRows(h.sluice, 'slow', rowsOf(0));
    await h.parts.wal.settle();
    const before = await roundTrips();
    // w2's put outlasts the idle wait (100 ms) that w1's landing began.
    h.store.inject({ op: 'putIfAbsent', key: walKey('slow', 0, 3), latencyMs: 250 });
    for (const w of [1, 2, 3]) await writeRows(h.sluice, 'slow', rowsOf(w));
    // Past the idle wait: completions no allocation took have gone on their own.
    await sleep(300);
    await h.parts.wal.settle();
    // w2 carries w1's completion and w3 carries w2's; only w3's goes on its own.
    expect(tripsSince(before, await roundTrips())).toMatchObject({
      allocate: 3,
      complete: 1,
      sealRequest: 0,
    });
    expect((await h.sluice.shards.stats('slow', 0)).frontier).toBe(4);
  });

  it('16 writers on one shard share entries: at most a quarter of a Redis round trip per acked write', async () => {
    await open({ groupCommit: true }, 'many', { sealDelayMs: 200 });
    const writers = 16;
    const rounds = 8;
    await writeRows(h.sluice, 'many', eventRows(0, 0));
    const before = await roundTrips();
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let round = 0; round < rounds; round++) {
          await writeRows(h.sluice, 'many', rowsOf(round * writers + writer));
        }
      }),
    );
    await h.parts.wal.settle();
    const trips = tripsSince(before, await roundTrips());
    expect(trips.total / (writers * rounds)).toBeLessThanOrEqual(0.25);
    expect(await readAll(h.sluice, 'many')).toEqual(eventRows(0, writers * rounds * 10));
  });
});

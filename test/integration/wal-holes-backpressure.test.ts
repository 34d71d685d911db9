import { afterEach, describe, expect, it } from 'vitest';
import { laneKeys } from '../../shared/redis/lane-keys.ts';
import { tableWalKey, walKey } from '../../shared/table/paths.ts';
import { decodeWalEntry } from '../../shared/wal/wal-entry.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { l0Rows, laneTable, rowsOfShard, sealAndFlush } from '../support/table-lane.ts';
import { waitFor } from '../support/wait-for.ts';

const WAL = (table: string, seq: number) => walKey(table, 0, seq);

describe('WAL holes and backpressure', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('a late writer whose seq was tombstoned gets WRITE_ABANDONED and its rows never appear', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('late'));
    const slow = h.store.inject({ op: 'putIfAbsent', key: WAL('late', 1), latencyMs: 500, times: 1 });
    const late = writeRows(h.sluice, 'late', eventRows(1, 5)).catch((err: unknown) => err);
    await waitFor(async () => (await h.parts.seqAllocation.allocatedThrough('late', 0)) === 1, {
      message: 'seq 1 allocated',
    });
    await writeRows(h.sluice, 'late', eventRows(6, 10));
    // Redis forgets the in-flight mark, as after a restart: the seal may declare seq 1 a hole at once.
    await h.redis.del(h.shardKeys('late', 0).inflight);
    const sealed = await h.sluice.shards.seal('late', 0);
    expect(sealed.holes).toEqual([1]);
    expect(sealed.sealed.map((g) => [g.walFrom, g.walTo])).toEqual([[1, 2]]);

    expect(await late).toMatchObject({ code: 'WRITE_ABANDONED', details: { seq: 1 } });
    expect(slow.hits).toBe(1);
    expect(await readAll(h.sluice, 'late')).toEqual(eventRows(6, 10));
    await h.sluice.shards.flush('late', 0);
    expect(await readAll(h.sluice, 'late')).toEqual(eventRows(6, 10));
  });

  it('a seal waits for an in-flight seq within the hole timeout instead of skipping it', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('waits'));
    h.store.inject({ op: 'putIfAbsent', key: WAL('waits', 1), latencyMs: 400, times: 1 });
    const first = writeRows(h.sluice, 'waits', eventRows(1, 5));
    await waitFor(async () => (await h.parts.seqAllocation.allocatedThrough('waits', 0)) === 1, {
      message: 'seq 1 allocated',
    });
    await writeRows(h.sluice, 'waits', eventRows(6, 10));
    const early = await h.sluice.shards.seal('waits', 0);
    expect(early.sealed).toEqual([]);
    expect(early.holes).toEqual([]);
    expect(early.retryAt).not.toBeNull();
    await first;
    const later = await h.sluice.shards.seal('waits', 0);
    expect(later.sealed.map((g) => [g.walFrom, g.walTo])).toEqual([[1, 2]]);
    expect(await readAll(h.sluice, 'waits')).toEqual(eventRows(1, 10));
  });

  it('a writer that gives up on a slow put tombstones its own seq and writes at the next: acked once', async () => {
    h = await createHarness({ wal: { putTimeoutMs: 200, holeTimeoutMs: 300 } });
    await h.createTable(eventsTable('timeout'));
    h.store.inject({ op: 'putIfAbsent', key: WAL('timeout', 1), latencyMs: 5_000, times: 1 });
    const acked = await writeRows(h.sluice, 'timeout', eventRows(1, 5));
    expect(acked.shards).toEqual([{ shard: 0, seq: 2 }]);
    expect(decodeWalEntry((await h.store.get(WAL('timeout', 1)))!.body, 1).kind).toBe('hole');
    await writeRows(h.sluice, 'timeout', eventRows(6, 10));
    await h.sluice.shards.seal('timeout', 0);
    expect(await readAll(h.sluice, 'timeout')).toEqual(eventRows(1, 10));
  });

  it('a writer whose tombstone cannot land either is never acked, and the seal tombstones its seq', async () => {
    h = await createHarness({ wal: { putTimeoutMs: 200, holeTimeoutMs: 300 } });
    await h.createTable(eventsTable('unknown'));
    h.store.inject({ op: 'putIfAbsent', key: WAL('unknown', 1), latencyMs: 5_000, times: 2 });
    const failed = await writeRows(h.sluice, 'unknown', eventRows(1, 5)).catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: 'ABORTED' });
    await writeRows(h.sluice, 'unknown', eventRows(6, 10));
    const sealed = await h.sluice.shards.seal('unknown', 0);
    expect(sealed.holes).toEqual([1]);
    expect(await readAll(h.sluice, 'unknown')).toEqual(eventRows(6, 10));
  });

  describe('a table lane (docs/table-wal-lane.md, §3–§4)', () => {
    // The put deadline must stay below the hole timeout, and a held put would meet its deadline
    // first; a writer stalled past both (SIGSTOP, a long pause) is one whose put was held while
    // its in-flight mark grew as old as the hole timeout.
    const wal = { putTimeoutMs: 10_000, holeTimeoutMs: 20_000 };

    /** A writer in another process whose put at lane seq 1 waits at the door until released. */
    function heldAtSeqOne(table: string) {
      const gated = new GatedStore(h.store);
      const gate = gated.hold('putIfAbsent', new RegExp(`^${tableWalKey(table, 1)}$`));
      return { writer: h.otherProcess(gated).sluice, gate };
    }

    /** The in-flight mark of `seq`, allocated that long ago; asserts it is there. */
    async function markAllocatedAt(table: string, seq: number, at: number) {
      const { inflight } = laneKeys(h.config.redisPrefix, table);
      expect(await h.redis.zadd(inflight, 'XX', 'CH', at, String(seq))).toBe(1);
    }

    it("I19: a seq tombstoned by shard 2's seal refuses the late put; no shard holds its rows", async () => {
      h = await createHarness({ wal });
      await h.createTable(laneTable('lanelate', 4));
      // The late write touches shards 0, 1 and 3, not 2: any shard's seal decides a lane seq for all.
      const ofShard2 = new Set((await rowsOfShard(h, 'lanelate', 2, eventRows(1, 40))).map((r) => r.id));
      const lateRows = eventRows(1, 40).filter((r) => !ofShard2.has(r.id));
      for (const shard of [0, 1, 3])
        expect(await rowsOfShard(h, 'lanelate', shard, lateRows)).not.toEqual([]);
      const { writer, gate } = heldAtSeqOne('lanelate');
      const late = writeRows(writer, 'lanelate', lateRows).catch((err: unknown) => err);
      await gate.reached;
      const rows = eventRows(101, 140);
      const ack = await writeRows(h.sluice, 'lanelate', rows);
      expect(ack.shards).toEqual([0, 1, 2, 3].map((shard) => ({ shard, seq: 2 })));
      // Its writer stalls past the hole timeout, while the later write landed.
      await markAllocatedAt('lanelate', 1, Date.now() - wal.holeTimeoutMs - 1);
      const sealed = await h.sluice.shards.seal('lanelate', 2);
      expect(sealed.holes).toEqual([1]);
      expect(sealed.sealed.map((g) => [g.walFrom, g.walTo])).toEqual([[1, 2]]);

      gate.release();
      expect(await late).toMatchObject({ code: 'WRITE_ABANDONED', details: { shards: [0, 1, 3], seq: 1 } });
      expect(decodeWalEntry((await h.store.get(tableWalKey('lanelate', 1)))!.body, 1).kind).toBe('hole');
      expect(await readAll(h.sluice, 'lanelate')).toEqual(rows);
      await sealAndFlush(h, 'lanelate', 4);
      for (let shard = 0; shard < 4; shard++) {
        const manifest = await h.parts.manifests.read('lanelate', shard);
        expect([manifest.sealedThrough, manifest.walCursor, manifest.sealed]).toEqual([2, 2, []]);
        expect(await l0Rows(h, 'lanelate', shard)).toEqual(await rowsOfShard(h, 'lanelate', shard, rows));
      }
      expect(await readAll(h.sluice, 'lanelate')).toEqual(rows);
    });

    it("I19: every shard's frontier waits on a seq in flight, then passes its hole", async () => {
      h = await createHarness({ wal });
      await h.createTable(laneTable('lanewaits', 4));
      const { writer, gate } = heldAtSeqOne('lanewaits');
      const held = writeRows(
        writer,
        'lanewaits',
        await rowsOfShard(h, 'lanewaits', 0, eventRows(1, 40)),
      ).catch((err: unknown) => err);
      await gate.reached;
      const rows = eventRows(101, 140);
      const ack = await writeRows(h.sluice, 'lanewaits', rows);
      expect(ack.shards).toEqual([0, 1, 2, 3].map((shard) => ({ shard, seq: 2 })));

      // Seq 1 holds no row of shards 1–3, but until it is decided none of them may pass it.
      const allocatedAt = Number(
        await h.redis.zscore(laneKeys(h.config.redisPrefix, 'lanewaits').inflight, '1'),
      );
      for (const shard of [1, 2, 3]) {
        const early = await h.sluice.shards.seal('lanewaits', shard);
        expect(early).toEqual({ sealed: [], holes: [], retryAt: allocatedAt + wal.holeTimeoutMs });
        expect((await h.parts.manifests.read('lanewaits', shard)).sealedThrough).toBe(0);
      }
      expect(await readAll(h.sluice, 'lanewaits')).toEqual(rows);

      // The hole timeout passes with the put still held.
      await markAllocatedAt('lanewaits', 1, allocatedAt - wal.holeTimeoutMs);
      // The first seal past the hole timeout tombstones seq 1; the others find its tombstone.
      for (const shard of [1, 2, 3, 0]) {
        const later = await h.sluice.shards.seal('lanewaits', shard);
        expect(later.holes).toEqual(shard === 1 ? [1] : []);
        expect(later.sealed.map((g) => [g.walFrom, g.walTo])).toEqual([[1, 2]]);
      }
      gate.release();
      expect(await held).toMatchObject({ code: 'WRITE_ABANDONED', details: { shard: 0, seq: 1 } });
      await sealAndFlush(h, 'lanewaits', 4);
      for (let shard = 0; shard < 4; shard++) {
        expect(await l0Rows(h, 'lanewaits', shard)).toEqual(await rowsOfShard(h, 'lanewaits', shard, rows));
      }
      expect(await readAll(h.sluice, 'lanewaits')).toEqual(rows);
    });
  });

  it('I18: backpressure engages past maxUnflushedGenerations and releases once flushed', async () => {
    h = await createHarness({ limits: { maxUnflushedGenerations: 2 } });
    await h.createTable(eventsTable('pressure'));
    for (let i = 0; i < 3; i++) {
      await writeRows(h.sluice, 'pressure', eventRows(i * 10 + 1, i * 10 + 10));
      await h.sluice.shards.seal('pressure', 0);
    }
    const refused = await writeRows(h.sluice, 'pressure', eventRows(100, 101)).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'BACKPRESSURE', status: 429, details: { retryAfterSeconds: 1 } });
    expect((await h.sluice.shards.stats('pressure', 0)).allocatedThrough).toBe(3);
    await h.sluice.shards.flush('pressure', 0);
    await writeRows(h.sluice, 'pressure', eventRows(100, 101));
    expect((await readAll(h.sluice, 'pressure')).length).toBe(32);
  });

  it('I18: backpressure engages past maxUnsealedBytes and releases once sealed', async () => {
    h = await createHarness({ limits: { maxUnsealedBytes: 2_000 } });
    await h.createTable(eventsTable('bytes', { settings: { sealDelayMs: 60_000 } }));
    await writeRows(h.sluice, 'bytes', eventRows(1, 100));
    const refused = await writeRows(h.sluice, 'bytes', eventRows(101, 102)).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'BACKPRESSURE', details: { reason: 'unsealed bytes' } });
    await h.sluice.shards.seal('bytes', 0);
    await writeRows(h.sluice, 'bytes', eventRows(101, 102));
    expect((await readAll(h.sluice, 'bytes')).length).toBe(102);
  });
});

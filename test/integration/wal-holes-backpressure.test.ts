import { afterEach, describe, expect, it } from 'vitest';
import { walKey } from '../../shared/table/paths.ts';
import { decodeWalEntry } from '../../shared/wal/wal-entry.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
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

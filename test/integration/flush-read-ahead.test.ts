import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generationKey, walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type CapturedLog, captureLog } from '../support/log-capture.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';

const TABLE = 'ahead';

describe('flush: the next generation is read while one is put and committed', () => {
  let h: Harness;
  let captured: CapturedLog;
  /** The WAL seq of generation 2's only entry. */
  let secondSeq: number;

  beforeEach(async () => {
    captured = captureLog();
    h = await createHarness({}, { log: captured.log });
    await h.createTable(eventsTable(TABLE));
    await writeRows(h.sluice, TABLE, eventRows(1, 10));
    await h.sluice.shards.seal(TABLE, 0);
    secondSeq = (await writeRows(h.sluice, TABLE, eventRows(11, 20))).shards[0]!.seq;
    await h.sluice.shards.seal(TABLE, 0);
    const { sealed } = await h.parts.manifests.read(TABLE, 0);
    expect(sealed.map((g) => [g.generation, g.walFrom, g.walTo])).toEqual([
      [1, 1, 1],
      [2, secondSeq, secondSeq],
    ]);
  });

  afterEach(() => h.close());

  it("reads generation 2's WAL range while generation 1's file is still being put, then commits 1 and 2 in order", async () => {
    const gated = new GatedStore(h.store);
    const flusher = h.otherProcess(gated).sluice;
    const putOfFirst = gated.hold('put', new RegExp(`${generationKey(TABLE, 0, 1)}$`));
    const readOfSecond = gated.hold('get', new RegExp(`${walKey(TABLE, 0, secondSeq)}$`));

    const readsOfSecond = h.store.inject({ op: 'get', key: walKey(TABLE, 0, secondSeq), latencyMs: 1 });

    const flushing = flusher.shards.flush(TABLE, 0);
    await putOfFirst.reached;
    await readOfSecond.reached;
    expect((await h.parts.manifests.read(TABLE, 0)).committed).toEqual([]);
    readOfSecond.release();
    putOfFirst.release();

    expect(await flushing).toEqual([1, 2]);
    // Generation 2 was built from what was read ahead, not read again in its turn.
    expect(readsOfSecond.hits).toBe(1);
    const { committed, walCursor } = await h.parts.manifests.read(TABLE, 0);
    expect(committed.map((c) => c.generation)).toEqual([1, 2]);
    expect(walCursor).toBe(secondSeq);
    expect((await readAll(h.sluice, TABLE)).map((r) => r.id)).toEqual(eventRows(1, 20).map((r) => r.id));
  });

  it('a run whose read-ahead generation another run committed meanwhile drops it, and flushes what is sealed next', async () => {
    const gated = new GatedStore(h.store);
    const flusher = h.otherProcess(gated).sluice;
    const putOfFirst = gated.hold('put', new RegExp(`${generationKey(TABLE, 0, 1)}$`));
    const flushing = flusher.shards.flush(TABLE, 0);
    await putOfFirst.reached;

    expect(await h.sluice.shards.flush(TABLE, 0)).toEqual([1, 2]);
    await writeRows(h.sluice, TABLE, eventRows(21, 30));
    await h.sluice.shards.seal(TABLE, 0);
    putOfFirst.release();

    expect(await flushing).toEqual([3]);
    const { committed, poison } = await h.parts.manifests.read(TABLE, 0);
    expect(committed.map((c) => c.generation)).toEqual([1, 2, 3]);
    expect(poison).toBeNull();
    // A dropped read ahead is no failure.
    expect(captured.warnings()).toEqual([]);
    expect((await readAll(h.sluice, TABLE)).map((r) => r.id)).toEqual(eventRows(1, 30).map((r) => r.id));
  });

  it('a read ahead that fails costs nothing: the generation reads its range again in its own turn', async () => {
    const fault = h.store.inject({ op: 'get', key: walKey(TABLE, 0, secondSeq), fault: 'fail', times: 1 });

    expect(await h.sluice.shards.flush(TABLE, 0)).toEqual([1, 2]);
    expect(fault.hits).toBe(1);
    expect(captured.warnings().map((line) => [line.msg, line.generation])).toEqual([
      ['reading ahead a sealed WAL range failed; its flush reads it again', 2],
    ]);
    expect((await h.sluice.shards.stats(TABLE, 0)).poison).toBeNull();
    expect((await readAll(h.sluice, TABLE)).map((r) => r.id)).toEqual(eventRows(1, 20).map((r) => r.id));
  });
});

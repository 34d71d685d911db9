import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { loadConfig, seqFloorRefreshMs, seqFloorTtlMs } from '../../shared/config.ts';
import { collectTable } from '../../shared/lsm/gc.ts';
import { laneKeys } from '../../shared/redis/lane-keys.ts';
import { walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { laneSeqs, laneTable, rowsOfShard, sealAndFlush } from '../support/table-lane.ts';

describe('config (I2, defect 4: the seq floor is reused for less than the GC grace)', () => {
  it('no GC grace accepted at load lets a writer reuse its seq floor for as long as the grace', () => {
    for (const gcGraceSeconds of [1, 2, 5, 10, 3600]) {
      const config = loadConfig({ SLUICE_GC_GRACE_SECONDS: String(gcGraceSeconds) });
      expect(seqFloorTtlMs(config)).toBeLessThan(gcGraceSeconds * 1000);
    }
  });
});

describe('write path (I2, defect 4: an acked write below sealedThrough)', () => {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  /** Seals and flushes what was written, waits out the grace, and lets GC delete the WAL range. */
  async function sealFlushCollect(table: string, graceSeconds: number) {
    await h.sluice.shards.seal(table, 0);
    await h.sluice.shards.flush(table, 0);
    // GC takes a manifest version as settled a grace and a second (store time granularity) after it.
    await sleep(graceSeconds * 1000 + 1_200);
    const def = await h.sluice.tables.describe(table);
    await collectTable(h.parts, def, { now: Date.now(), graceMs: graceSeconds * 1000 });
    expect(await h.store.get(walKey(table, 0, 1))).toBeNull();
  }

  async function counterGoesBack(table: string) {
    await h.redis.set(h.shardKeys(table, 0).seq, '0');
  }

  async function expectVisibleAboveSealed(
    table: string,
    ack: { shards: Array<{ seq: number }> },
    ids: string[],
  ) {
    const manifest = await h.parts.manifests.read(table, 0);
    expect(ack.shards[0]!.seq).toBeGreaterThan(manifest.sealedThrough);
    const read = new Set((await readAll(h.sluice, table)).map((r) => String(r.id)));
    for (const id of ids) expect(read.has(id), `acked row ${id} readable`).toBe(true);
  }

  it('a seq counter that went back after GC removed the sealed range never acks a write there', async () => {
    h = await createHarness({ scheduler: { gcGraceSeconds: 1 } });
    await h.createTable(eventsTable('floor'));
    await writeRows(h.sluice, 'floor', eventRows(1, 1));
    await sealFlushCollect('floor', 1);
    await counterGoesBack('floor');

    const ack = await writeRows(h.sluice, 'floor', eventRows(2, 2));
    await expectVisibleAboveSealed('floor', ack, ['1', '2']);
  });

  it('a put that lands after GC re-created its deleted seq is not acked there, but above the sealed range', async () => {
    h = await createHarness({
      scheduler: { gcGraceSeconds: 2 },
      wal: { putTimeoutMs: 10_000, holeTimeoutMs: 20_000 },
    });
    await h.createTable(eventsTable('slow'));
    const gated = new GatedStore(h.store);
    const writer = h.otherProcess(gated).sluice;
    await writeRows(writer, 'slow', eventRows(1, 1));
    await h.sluice.shards.seal('slow', 0);
    await counterGoesBack('slow');
    const gate = gated.hold('putIfAbsent', /\/wal\/0+1\.arrow$/);
    const late = writeRows(writer, 'slow', eventRows(2, 2));
    await gate.reached;

    await h.sluice.shards.flush('slow', 0);
    await sleep(3_200);
    const def = await h.sluice.tables.describe('slow');
    await collectTable(h.parts, def, { now: Date.now(), graceMs: 2_000 });
    expect(await h.store.get(walKey('slow', 0, 1))).toBeNull();
    gate.release();

    await expectVisibleAboveSealed('slow', await late, ['1', '2']);
  });

  it('a put that landed before the seal took it, answered only after the grace, is acked at its seq and not put again', async () => {
    h = await createHarness({ scheduler: { gcGraceSeconds: 1 } });
    await h.createTable(eventsTable('late'));
    const gated = new GatedStore(h.store);
    const answer = gated.holdAnswer(/\/wal\/0+1\.arrow$/);
    const writer = h.otherProcess(gated).sluice;
    const acked = writeRows(writer, 'late', eventRows(1, 1));
    await answer.reached;
    // The entry is there, so the seal takes it; its writer hears of its put only a grace later.
    await h.sluice.shards.seal('late', 0);
    expect((await h.parts.manifests.read('late', 0)).sealedThrough).toBe(1);
    await sleep(1_200);
    answer.release();

    expect((await acked).shards[0]!.seq).toBe(1);
    expect(await h.store.head(walKey('late', 0, 2))).toBeNull();
    await h.sluice.shards.seal('late', 0);
    const manifest = await h.parts.manifests.read('late', 0);
    expect(manifest.sealed.reduce((rows, g) => rows + g.walRows, 0)).toBe(1);
    expect(await readAll(h.sluice, 'late')).toEqual(eventRows(1, 1));
  });

  it("in a table lane, a put the floor shard's seal took, answered only after the grace, is acked at its seq", async () => {
    h = await createHarness({ scheduler: { gcGraceSeconds: 1 } });
    await h.createTable(laneTable('latelane', 4));
    const gated = new GatedStore(h.store);
    const answer = gated.holdAnswer(/\/wal\/0+1\.arrow$/);
    const writer = h.otherProcess(gated).sluice;
    const rows = eventRows(1, 12);
    const acked = writeRows(writer, 'latelane', rows);
    await answer.reached;
    // The writer checks the lowest shard its write touches; only that one is sealed here.
    let floorShard = 0;
    while ((await rowsOfShard(h, 'latelane', floorShard, rows)).length === 0) floorShard += 1;
    await h.sluice.shards.seal('latelane', floorShard);
    expect((await h.parts.manifests.read('latelane', floorShard)).sealedThrough).toBe(1);
    await sleep(1_200);
    answer.release();

    expect(new Set((await acked).shards.map((s) => s.seq))).toEqual(new Set([1]));
    expect(await laneSeqs(h, 'latelane')).toEqual([1]);
    expect(await readAll(h.sluice, 'latelane')).toEqual(rows);
  });

  it("a table lane's counter gone back never acks below any shard's sealed range (shards sealed to different seqs)", async () => {
    h = await createHarness({ scheduler: { gcGraceSeconds: 1 } });
    await h.createTable(laneTable('lanefloor', 4));
    const written: JsonRow[] = [];
    const write = async (rows: JsonRow[]) => {
      const ack = await writeRows(h.sluice, 'lanefloor', rows);
      written.push(...rows);
      return ack;
    };
    const sealedThrough = () =>
      Promise.all(
        [0, 1, 2, 3].map(async (s) => (await h.parts.manifests.read('lanefloor', s)).sealedThrough),
      );

    // Seqs 1–2, sealed and flushed on every shard; then 3–8, after which shard 0 is sealed
    // through 4, shard 3 through 6 and shard 2 through 8, while shard 1 stays at 2.
    await write(eventRows(1, 40));
    await write(eventRows(41, 80));
    await sealAndFlush(h, 'lanefloor', 4);
    const sealAfter = new Map([
      [4, 0],
      [6, 3],
      [8, 2],
    ]);
    for (let seq = 3; seq <= 8; seq++) {
      expect((await write(eventRows(seq * 100, seq * 100 + 39))).shards[0]!.seq).toBe(seq);
      const shard = sealAfter.get(seq);
      if (shard === undefined) continue;
      await h.sluice.shards.seal('lanefloor', shard);
      await h.sluice.shards.flush('lanefloor', shard);
    }
    expect(await sealedThrough()).toEqual([4, 2, 8, 6]);
    // GC takes a manifest version as settled a grace and a second after it; the lowest
    // settled cursor is shard 1's.
    await sleep(2_200);
    const def = await h.sluice.tables.describe('lanefloor');
    await collectTable(h.parts, def, { now: Date.now(), graceMs: 1_000 });
    expect(await laneSeqs(h, 'lanefloor')).toEqual([3, 4, 5, 6, 7, 8]);

    // Each write finds the counter gone back to 0, and its floor is the sealed range of the
    // lowest shard it touches: shard 1's lies six entries below the lane's tail.
    for (const [i, shards] of [[1], [2, 3], [0, 3], [1, 2], [0, 1, 2, 3]].entries()) {
      await h.redis.set(laneKeys(h.config.redisPrefix, 'lanefloor').seq, '0');
      const present = await laneSeqs(h, 'lanefloor');
      const pool = eventRows(1_000 * (i + 1), 1_000 * (i + 1) + 39);
      const ofShards = await Promise.all(shards.map((s) => rowsOfShard(h, 'lanefloor', s, pool)));
      const ids = new Set(ofShards.flat().map((r) => r.id));
      const ack = await write(pool.filter((r) => ids.has(r.id)));
      const seq = ack.shards[0]!.seq;
      expect(ack.shards).toEqual(shards.map((shard) => ({ shard, seq })));
      expect(seq).toBeGreaterThan(Math.max(...present, ...(await sealedThrough())));
    }
    expect(await readAll(h.sluice, 'lanefloor')).toEqual(written);
    await sealAndFlush(h, 'lanefloor', 4);
    expect(await readAll(h.sluice, 'lanefloor')).toEqual(written);
  });
});

describe('write path: the seq floor is read again off the ack path', () => {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('a write past the floor’s age does not wait for the shard manifest: the floor was refreshed behind the writes before it', async () => {
    // Floor age 1 s, refreshed past 0.5 s; on S3 a re-read walks every manifest version since the last one, a GET each.
    h = await createHarness({ scheduler: { gcGraceSeconds: 4 } });
    const ttl = seqFloorTtlMs(h.config);
    const refresh = seqFloorRefreshMs(h.config);
    await h.createTable(eventsTable('refreshed'));
    const gated = new GatedStore(h.store);
    const writer = h.otherProcess(gated).sluice;
    const started = Date.now();
    await writeRows(writer, 'refreshed', eventRows(1, 1));
    await sleep(refresh * 1.2 - (Date.now() - started));
    await writeRows(writer, 'refreshed', eventRows(2, 2));
    await sleep(ttl * 1.2 - (Date.now() - started));
    const manifest = gated.hold('get', /shards\/0\/_manifest\//);
    // The write must end while every read of the shard's manifest is held (a refresh behind it may be).
    const write = writeRows(writer, 'refreshed', eventRows(3, 3)).then(() => 'acked');
    expect(await Promise.race([write, sleep(5_000).then(() => 'still waiting with the manifest held')])).toBe(
      'acked',
    );
    manifest.release();
    expect((await readAll(h.sluice, 'refreshed')).map((r) => String(r.id))).toEqual(['1', '2', '3']);
  });

  it('a process that has not written a shard for longer than the floor’s refresh age does not wait for its manifest', async () => {
    // A Lambda-style writer on a busy table: on S3 the read walks every manifest version
    // committed since its last one, and held S3 acks for a quarter of a second.
    h = await createHarness({ scheduler: { gcGraceSeconds: 40 } });
    await h.createTable(eventsTable('idle'));
    const gated = new GatedStore(h.store);
    const writer = h.otherProcess(gated).sluice;
    await writeRows(writer, 'idle', eventRows(1, 1));
    await sleep(5_500);
    const manifest = gated.hold('get', /shards\/0\/_manifest\//);
    const write = writeRows(writer, 'idle', eventRows(2, 2)).then(() => 'acked');
    expect(await Promise.race([write, sleep(3_000).then(() => 'still waiting with the manifest held')])).toBe(
      'acked',
    );
    manifest.release();
    expect((await readAll(h.sluice, 'idle')).map((r) => String(r.id))).toEqual(['1', '2']);
  });

  it('a counter that went back below a floor served stale costs one collision: the write goes above the sealed range, past its hole', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('behind'));
    await writeRows(h.sluice, 'behind', eventRows(1, 1));
    // Seq 2 is handed out and never written: with no in-flight mark the seal makes it a hole.
    await h.redis.incr(h.shardKeys('behind', 0).seq);
    await writeRows(h.sluice, 'behind', eventRows(3, 3));
    const sealed = await h.sluice.shards.seal('behind', 0);
    expect(sealed.holes).toEqual([2]);
    await h.redis.set(h.shardKeys('behind', 0).seq, '0');

    const ack = await writeRows(h.sluice, 'behind', eventRows(4, 4));
    expect(ack.shards[0]!.seq).toBe(4);
    expect((await readAll(h.sluice, 'behind')).map((r) => String(r.id))).toEqual(['1', '3', '4']);
  });
});

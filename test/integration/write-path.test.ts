import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { flushShard } from '../../shared/lsm/flush.ts';
import { walPuts, walRedisRoundTrips } from '../../shared/metrics.ts';
import type { GetOptions, ObjectStore, PutOptions } from '../../shared/store/object-store.ts';
import { generationKey, walKey } from '../../shared/table/paths.ts';
import { ENTRY_HEAD_BYTES, EntryHeads } from '../../shared/wal/entry-heads.ts';
import { counterSince } from '../support/counter-since.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, lookupJson, readAll, writeRows } from '../support/rows.ts';
import { l0Rows, laneSeqs, laneTable, rowsOfShard, sealAndFlush } from '../support/table-lane.ts';
import { waitFor } from '../support/wait-for.ts';

async function committedThrough(h: Harness, table: string, shard: number, walSeq: number): Promise<boolean> {
  const manifest = await h.parts.manifests.read(table, shard);
  return manifest.walCursor >= walSeq;
}

describe('write path: WAL → seal → flush → reads', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('I1: an acked write is a durable WAL entry before anything else runs', async () => {
    await h.createTable(eventsTable('ack'));
    const ack = await writeRows(h.sluice, 'ack', eventRows(1, 3));
    expect(ack).toEqual({ acked: 3, shards: [{ shard: 0, seq: 1 }] });
    const entry = await h.store.inner.head(walKey('ack', 0, 1));
    expect(entry?.size).toBeGreaterThan(0);
  });

  it("a write's seq allocation leaves for Redis before its entry is encoded and staged, so both overlap the round trip", async () => {
    const def = await h.createTable(eventsTable('overlap'));
    // The first write reads the shard's seq floor; the second finds it fresh.
    await writeRows(h.sluice, 'overlap', eventRows(1, 1));
    const second = jsonRowsToRecordBatch(def.schema, eventRows(2, 2));
    const events: string[] = [];
    const redis = h.redis as Redis;
    const send = redis.sendCommand.bind(redis);
    vi.spyOn(redis, 'sendCommand').mockImplementation((...args: Parameters<Redis['sendCommand']>) => {
      events.push(args[0].name);
      return send(...args);
    });
    const stage = h.store.stage!;
    Object.defineProperty(h.store, 'stage', {
      value: (...args: Parameters<typeof stage>) => {
        events.push('stage');
        return stage(...args);
      },
    });
    const ack = await h.sluice.writes.append('overlap', second);
    expect(ack.shards).toEqual([{ shard: 0, seq: 2 }]);
    expect(events.slice(0, 2)).toEqual(['evalsha', 'stage']);
  });

  it('a write of no rows acks nothing and puts no WAL entry, on one shard as on many', async () => {
    for (const shards of [1, 4]) {
      const name = `empty${shards}`;
      const def = await h.createTable(eventsTable(name, { shards }));
      const empty = jsonRowsToRecordBatch(def.schema, eventRows(1, 1)).slice(0, 0);
      expect(await h.sluice.writes.append(name, empty)).toEqual({ acked: 0, shards: [] });
      expect(await h.store.inner.head(walKey(name, 0, 1))).toBeNull();
    }
  });

  it('I10: reads see a write at once from the WAL, and still after it moved to L0', async () => {
    await h.createTable(eventsTable('ryw'));
    await writeRows(h.sluice, 'ryw', eventRows(1, 5));
    expect(await lookupJson(h.sluice, 'ryw', 3)).toEqual({ id: 3, name: 'event-3-v1', value: 3 });
    h.startWorkers();
    await waitFor(() => committedThrough(h, 'ryw', 0, 1), { message: 'the entry flushed to L0' });
    const manifest = await h.parts.manifests.read('ryw', 0);
    expect(manifest.committed.map((c) => c.generation)).toEqual([1]);
    expect(await lookupJson(h.sluice, 'ryw', 3)).toEqual({ id: 3, name: 'event-3-v1', value: 3 });
    expect(await readAll(h.sluice, 'ryw')).toEqual(eventRows(1, 5));
  });

  it('I10: the newest acked value per key wins across WAL and L0, and deletes hide older values', async () => {
    await h.createTable(eventsTable('newest', { shards: 3 }));
    h.startWorkers();
    await writeRows(h.sluice, 'newest', eventRows(1, 30, 1));
    await waitFor(async () => (await readAll(h.sluice, 'newest')).length === 30, { message: 'first rows' });
    await waitFor(
      async () => {
        for (let s = 0; s < 3; s++)
          if ((await h.parts.manifests.read('newest', s)).committed.length === 0) return false;
        return true;
      },
      { message: 'every shard flushed once' },
    );
    await writeRows(h.sluice, 'newest', eventRows(11, 20, 2));
    await h.sluice.writes.delete('newest', [1, 2, 25]);
    const expected = [
      ...eventRows(3, 10, 1),
      ...eventRows(11, 20, 2),
      ...eventRows(21, 24, 1),
      ...eventRows(26, 30, 1),
    ];
    expect(await readAll(h.sluice, 'newest', 7)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'newest', 1)).toBeNull();
    expect(await lookupJson(h.sluice, 'newest', 15)).toEqual(eventRows(15, 15, 2)[0]);
    await waitFor(
      async () => {
        for (let s = 0; s < 3; s++) {
          const stats = await h.sluice.shards.stats('newest', s);
          if (stats.sealed.length > 0 || stats.unsealedEntries > 0) return false;
        }
        return true;
      },
      { message: 'everything flushed' },
    );
    expect(await readAll(h.sluice, 'newest', 7)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'newest', 25)).toBeNull();
  });

  it('routes rows to shards by key hash and acks each shard with its own seq', async () => {
    await h.createTable(eventsTable('routing', { shards: 4 }));
    const ack = await writeRows(h.sluice, 'routing', eventRows(1, 100));
    expect(ack.acked).toBe(100);
    expect(ack.shards.map((s) => s.shard)).toEqual([0, 1, 2, 3]);
    expect(ack.shards.every((s) => s.seq === 1)).toBe(true);
    expect(await readAll(h.sluice, 'routing', 33)).toEqual(eventRows(1, 100));
  });

  it('group commit: concurrent writes to one shard share WAL entries and are all acked', async () => {
    await h.close();
    h = await createHarness({ wal: { groupCommit: true } });
    await h.createTable(eventsTable('group'));
    const acks = await Promise.all(
      Array.from({ length: 10 }, (_, i) => writeRows(h.sluice, 'group', eventRows(i * 10 + 1, i * 10 + 10))),
    );
    // The first put starts at once; whatever arrives while it is in flight shares the next.
    const seqs = new Set(acks.map((a) => a.shards[0]!.seq));
    expect(seqs.size).toBeLessThanOrEqual(2);
    expect(await readAll(h.sluice, 'group')).toEqual(eventRows(1, 100));
  });

  it('a long backlog seals into several bounded generations that flush in order', async () => {
    await h.createTable(eventsTable('backlog', { settings: { maxGenerationRows: 10, sealDelayMs: 0 } }));
    for (let i = 0; i < 6; i++) await writeRows(h.sluice, 'backlog', eventRows(i * 10 + 1, i * 10 + 10));
    const sealed = await h.sluice.shards.seal('backlog', 0);
    expect(sealed.sealed.map((g) => [g.generation, g.walFrom, g.walTo])).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 3],
      [4, 4, 4],
      [5, 5, 5],
      [6, 6, 6],
    ]);
    expect(await h.sluice.shards.flush('backlog', 0)).toEqual([1, 2, 3, 4, 5, 6]);
    const stats = await h.sluice.shards.stats('backlog', 0);
    expect(stats.walCursor).toBe(6);
    expect(stats.committed.map((c) => c.rows)).toEqual([10, 10, 10, 10, 10, 10]);
    expect(await readAll(h.sluice, 'backlog')).toEqual(eventRows(1, 60));
  });

  describe('a generation of four and a half entries, with a seal delay of a minute', () => {
    // Ids of four digits give every ten-row write an entry of the same size.
    const write = (table: string, i: number) =>
      writeRows(h.sluice, table, eventRows(1000 + i * 10, 1009 + i * 10));

    async function createTable(name: string): Promise<number> {
      await h.createTable(eventsTable('probe'));
      await write('probe', 0);
      // The probe's own seal request goes out in the background: settled here, a test that
      // counts seal requests does not count it.
      await h.parts.wal.settle();
      const entryBytes = (await h.store.inner.head(walKey('probe', 0, 1)))!.size;
      const maxGenerationBytes = Math.floor(entryBytes * 4.5);
      await h.createTable(eventsTable(name, { settings: { sealDelayMs: 60_000, maxGenerationBytes } }));
      return maxGenerationBytes;
    }

    it('is sealed at once when its unsealed bytes fill three quarters of it, not after the delay', async () => {
      const maxGenerationBytes = await createTable('urgent');
      h.startWorkers();
      // The fifth write learns from its allocation that four entries (more than 3.375 of them) wait.
      for (let i = 0; i < 5; i++) await write('urgent', i);
      const manifest = await waitFor(
        async () => {
          const m = await h.parts.manifests.read('urgent', 0);
          return m.sealedThrough >= 4 ? m : null;
        },
        { message: 'the urgent seal, well before the 60 s seal delay' },
      );
      const generations = [...manifest.sealed, ...manifest.committed];
      expect(generations.length).toBeGreaterThan(0);
      for (const g of generations) expect(g.walBytes).toBeLessThanOrEqual(maxGenerationBytes);
    });

    it('has its urgent seal asked for once until a seal takes the bytes, not by every write past three quarters', async () => {
      await createTable('asked');
      const sealRequests = await counterSince(walRedisRoundTrips, { step: 'seal_request' });
      // No workers: nothing seals, so writes five to ten all find the bytes past three quarters.
      for (let i = 0; i < 10; i++) await write('asked', i);
      await h.parts.wal.settle();
      // The first write's request, due after the seal delay, and the one urgent request.
      expect(await sealRequests()).toBe(2);
    });

    it('has its urgent seal asked for once even when the writer forgets the idle lane between writes', async () => {
      await createTable('asked-idle');
      const sealRequests = await counterSince(walRedisRoundTrips, { step: 'seal_request' });
      // Settled after each write, the lane is idle and forgotten before the next write builds it
      // anew, as on a loaded machine where a write's background run ends before the next arrives.
      for (let i = 0; i < 10; i++) {
        await write('asked-idle', i);
        await h.parts.wal.settle();
      }
      expect(await sealRequests()).toBe(2);
    });
  });

  it('a steady trickle of writes is still sealed every sealDelayMs, not only when writing pauses', async () => {
    await h.createTable(eventsTable('trickle', { settings: { sealDelayMs: 200 } }));
    h.startWorkers();
    const started = Date.now();
    for (let i = 0; Date.now() - started < 1_500; i++) {
      await writeRows(h.sluice, 'trickle', eventRows(i * 2 + 1, i * 2 + 2));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const manifest = await h.parts.manifests.read('trickle', 0);
    expect(manifest.nextGeneration - 1).toBeGreaterThanOrEqual(3);
  });

  it('I13: a flush run twice rewrites the same artifact and commits once', async () => {
    await h.createTable(eventsTable('twice'));
    await writeRows(h.sluice, 'twice', eventRows(1, 10));
    await h.sluice.shards.seal('twice', 0);
    const [a, b] = await Promise.all([h.sluice.shards.flush('twice', 0), h.sluice.shards.flush('twice', 0)]);
    expect([...a, ...b]).toEqual([1]);
    const manifest = await h.parts.manifests.read('twice', 0);
    expect(manifest.committed.map((c) => c.generation)).toEqual([1]);
    const artifact = await h.store.inner.head(manifest.committed[0]!.path);
    expect(artifact?.size).toBe(manifest.committed[0]!.bytes);
    expect(await h.sluice.shards.flush('twice', 0)).toEqual([]);
    expect(await readAll(h.sluice, 'twice')).toEqual(eventRows(1, 10));
  });

  describe("a flush's manifest reads", () => {
    async function sealTwo(name: string) {
      const def = await h.createTable(eventsTable(name));
      for (const from of [1, 11]) {
        await writeRows(h.sluice, name, eventRows(from, from + 9));
        await h.sluice.shards.seal(name, 0);
      }
      return def;
    }

    it('are one to start and one beside each L0 put, none after the last commit', async () => {
      const def = await sealTwo('reads');
      const reads = vi.spyOn(h.parts.manifests, 'read');
      try {
        expect(await flushShard(h.parts, def, 0)).toEqual([1, 2]);
        // The commit's own answer says what is sealed next; a seal after the last commit asks
        // for a flush of its own, which runs after this one (I12).
        expect(reads).toHaveBeenCalledTimes(3);
      } finally {
        reads.mockRestore();
      }
      expect(await readAll(h.sluice, 'reads')).toEqual(eventRows(1, 20));
    });

    it('still take a generation sealed while the flush puts the one before', async () => {
      const def = await h.createTable(eventsTable('midseal'));
      await writeRows(h.sluice, 'midseal', eventRows(1, 10));
      await h.sluice.shards.seal('midseal', 0);
      const gated = new GatedStore(h.store);
      const held = gated.hold('put', new RegExp(`^${generationKey('midseal', 0, 1)}$`));
      const flushing = flushShard({ ...h.parts, store: gated }, def, 0);
      await held.reached;
      await writeRows(h.sluice, 'midseal', eventRows(11, 20));
      await h.sluice.shards.seal('midseal', 0);
      held.release();
      expect(await flushing).toEqual([1, 2]);
      expect(await readAll(h.sluice, 'midseal')).toEqual(eventRows(1, 20));
    });
  });

  it('scan pages never repeat or lose a row, and a forged cursor is refused', async () => {
    await h.createTable(eventsTable('pages', { shards: 2 }));
    await writeRows(h.sluice, 'pages', eventRows(1, 57));
    const first = await h.sluice.reads.scan('pages', { limit: 10 });
    expect(first.rows.numRows).toBe(10);
    expect(first.next).toMatch(/^s2\./);
    expect((await readAll(h.sluice, 'pages', 10)).map((r) => r.id)).toEqual(
      eventRows(1, 57).map((r) => r.id),
    );
    await expect(h.sluice.reads.scan('pages', { limit: 10, after: 's2.!!' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    await expect(h.sluice.reads.scan('pages', { limit: 10, after: 's2.AAE' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    await expect(h.sluice.reads.scan('pages', { limit: 10, after: 'nonsense' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });

  describe('a table lane (docs/table-wal-lane.md)', () => {
    it.each([4, 16])(
      "I1/I19: a write to %i shards is one WAL PUT and one allocation; every shard's ack names that one seq, and its rows reach exactly that shard's L0",
      async (shards) => {
        const name = `lane${shards}`;
        await h.createTable(laneTable(name, shards));
        const rows = eventRows(1, 20 * shards);
        // The table's definition, and the lane's Redis state and floor, before anything is counted.
        await writeRows(h.sluice, name, eventRows(100_000, 100_000));
        await h.parts.wal.settle();
        const puts = await counterSince(walPuts, { outcome: 'ok' });
        const allocations = await counterSince(walRedisRoundTrips, { step: 'allocate' });
        const putIfAbsent = h.store.calls.putIfAbsent;
        const ack = await writeRows(h.sluice, name, rows);
        expect(await puts()).toBe(1);
        expect(await allocations()).toBe(1);
        expect(h.store.calls.putIfAbsent - putIfAbsent).toBe(1);
        expect(ack.shards.map((s) => s.shard)).toEqual(Array.from({ length: shards }, (_, s) => s));
        expect(new Set(ack.shards.map((s) => s.seq))).toEqual(new Set([2]));
        expect(await laneSeqs(h, name)).toEqual([1, 2]);

        await sealAndFlush(h, name, shards);
        const written = [...rows, ...eventRows(100_000, 100_000)];
        for (let shard = 0; shard < shards; shard++) {
          const manifest = await h.parts.manifests.read(name, shard);
          expect([manifest.sealedThrough, manifest.walCursor, manifest.sealed]).toEqual([2, 2, []]);
          expect(await l0Rows(h, name, shard)).toEqual(await rowsOfShard(h, name, shard, written));
        }
        expect(await readAll(h.sluice, name, 37)).toEqual([...rows, ...eventRows(100_000, 100_000)]);
      },
    );

    it("I18: a flush gives its shard's unflushed generations back to the lane: writes go on once the backlog is flushed", async () => {
      await h.close();
      h = await createHarness({ limits: { maxUnflushedGenerations: 1 } });
      await h.createTable(laneTable('lanebacklog', 2));
      for (const [from, to] of [
        [1, 20],
        [21, 40],
      ]) {
        await writeRows(h.sluice, 'lanebacklog', eventRows(from!, to!));
        for (const shard of [0, 1]) await h.sluice.shards.seal('lanebacklog', shard);
      }
      await expect(writeRows(h.sluice, 'lanebacklog', eventRows(41, 60))).rejects.toMatchObject({
        code: 'BACKPRESSURE',
      });
      for (const shard of [0, 1]) expect(await h.sluice.shards.flush('lanebacklog', shard)).toEqual([1, 2]);
      expect((await writeRows(h.sluice, 'lanebacklog', eventRows(41, 60))).acked).toBe(20);
    });

    it("§12: the flushes of a 4-shard table's small entries make one GET per entry, not one per shard, and write each shard's rows", async () => {
      const def = await h.createTable(laneTable('laneheads', 4));
      const written = [1, 41, 81, 121, 161].map((from) => eventRows(from, from + 39));
      for (const rows of written) await writeRows(h.sluice, 'laneheads', rows);
      for (let shard = 0; shard < 4; shard++) await h.sluice.shards.seal('laneheads', shard);
      const log = { reads: [] as string[], l0: [] as Uint8Array[] };
      for (let shard = 0; shard < 4; shard++) {
        expect(await flushShard({ ...h.parts, store: recorded(h.store, log) }, def, shard)).toEqual([1]);
        expect(await l0Rows(h, 'laneheads', shard)).toEqual(
          await rowsOfShard(h, 'laneheads', shard, written.flat()),
        );
      }
      expect(log.reads).toHaveLength(written.length);
      expect(new Set(log.reads.map((read) => read.split(' ')[0])).size).toBe(written.length);
    });

    it('I11/I13: a flush run twice reads the same ranges and writes the same L0', async () => {
      const def = await h.createTable(laneTable('lanetwice', 4));
      await writeRows(h.sluice, 'lanetwice', eventRows(1, 40));
      await writeRows(h.sluice, 'lanetwice', eventRows(41, 42));
      await h.sluice.shards.seal('lanetwice', 2);
      const gated = new GatedStore(h.store);
      const first = { reads: [] as string[], l0: [] as Uint8Array[] };
      const second = { reads: [] as string[], l0: [] as Uint8Array[] };
      // The first run is held at its L0 put until the second has committed the generation.
      const held = gated.hold('put', new RegExp(`^${generationKey('lanetwice', 2, 1)}$`));
      // Each run with heads of its own, as in two worker processes (docs/table-wal-lane.md §12).
      const zombie = flushShard(
        { ...h.parts, store: recorded(gated, first), entryHeads: new EntryHeads() },
        def,
        2,
      );
      await held.reached;
      expect(
        await flushShard(
          { ...h.parts, store: recorded(h.store, second), entryHeads: new EntryHeads() },
          def,
          2,
        ),
      ).toEqual([1]);
      held.release();
      expect(await zombie).toEqual([]);

      const manifest = await h.parts.manifests.read('lanetwice', 2);
      expect(manifest.committed.map((c) => c.generation)).toEqual([1]);
      // Both runs: one GET per member entry, of its head, the same ones.
      expect(first.reads.sort()).toEqual(second.reads.sort());
      expect(first.reads).toHaveLength(2);
      expect(first.reads.every((read) => read.endsWith(` 0-${ENTRY_HEAD_BYTES}`))).toBe(true);
      expect(second.l0).toHaveLength(1);
      expect(first.l0).toEqual(second.l0);
      expect(new Uint8Array((await h.store.inner.get(manifest.committed[0]!.path))!.body)).toEqual(
        second.l0[0],
      );
      expect(await l0Rows(h, 'lanetwice', 2)).toEqual(await rowsOfShard(h, 'lanetwice', 2, eventRows(1, 42)));
    });
  });
});

/** `store`, noting the WAL reads (key and range) and L0 puts made through it. */
function recorded(store: ObjectStore, log: { reads: string[]; l0: Uint8Array[] }): ObjectStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'get') {
        return (key: string, options?: GetOptions) => {
          if (key.includes('/wal/')) log.reads.push(`${key} ${options?.range?.start}-${options?.range?.end}`);
          return target.get(key, options);
        };
      }
      if (prop === 'put') {
        return (key: string, body: Uint8Array, options?: PutOptions) => {
          if (key.includes('/gen/')) log.l0.push(body);
          return target.put(key, body, options);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectTable } from '../../shared/lsm/gc.ts';
import { poison } from '../../shared/lsm/poison.ts';
import type { WorkKind } from '../../shared/scheduler/contracts.ts';
import { type SamplerDeps, samplerTick } from '../../shared/scheduler/sampler.ts';
import { walKey } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { deleteKeys } from '../support/redis.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { laneSeqs, laneTable, rowsOfShard } from '../support/table-lane.ts';
import { waitFor } from '../support/wait-for.ts';

/** The sampler's ports, recording what it asks for; the gates answer from sets the test fills. */
function recordingPorts() {
  const requested: Array<{ kind: WorkKind; table: string }> = [];
  const drained = new Set<string>();
  const cooling = new Set<string>();
  return {
    requested,
    drained,
    cooling,
    work: {
      requestMerge: async (table: string) => {
        requested.push({ kind: 'merge', table });
        return `merge-${requested.length}`;
      },
    },
    gates: {
      isDrained: async (table: string) => drained.has(table),
      isCoolingDown: async (kind: WorkKind, table: string) => cooling.has(`${kind}/${table}`),
    },
  };
}

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: pino({ level: 'info' }, stream) };
}

describe('sampler / scheduler tick (docs/design.md, "Sampler and scheduler")', () => {
  let h: Harness;
  let ports: ReturnType<typeof recordingPorts>;
  let captured: ReturnType<typeof capturingLogger>;

  async function setup(scheduler: Record<string, number> = {}) {
    h = await createHarness({ scheduler: { gcGraceSeconds: 3600, ...scheduler } });
    ports = recordingPorts();
    captured = capturingLogger();
  }

  function deps(): SamplerDeps {
    const s = h.parts;
    return { ...s, index: s.samplerIndex, log: captured.log, gates: ports.gates, work: ports.work };
  }

  afterEach(() => h.close());

  /** Adds `count` generations of 10 new rows each, continuing the ids of earlier calls. */
  async function generations(table: string, count: number) {
    const first = (await h.sluice.shards.stats(table, 0)).currentGeneration - 1;
    for (let g = first; g < first + count; g++) {
      await writeRows(h.sluice, table, eventRows(g * 10 + 1, g * 10 + 10));
      await h.sluice.shards.seal(table, 0);
      await h.sluice.shards.flush(table, 0);
    }
  }

  describe('merge triggers', () => {
    beforeEach(() => setup());

    it('count trigger: no merge below mergeAfterGenerations, a merge at it; merging drains pending to 0', async () => {
      await h.createTable(
        eventsTable('count', { settings: { mergeAfterGenerations: 3, mergeAfterSeconds: 0 } }),
      );
      await generations('count', 2);
      expect((await samplerTick(deps())).merges).toEqual([]);
      await generations('count', 1);
      const report = await samplerTick(deps());
      expect(report.merges).toHaveLength(1);
      expect(ports.requested).toEqual([{ kind: 'merge', table: 'count' }]);
      await h.sluice.tableWork.merge('count');
      expect((await h.sluice.shards.stats('count', 0)).pendingGenerations).toBe(0);
      expect((await samplerTick(deps())).merges).toEqual([]);
      const sampled = await h.parts.samplerIndex.all();
      expect(sampled.find((s) => s.table === 'count')?.pending).toBe(0);
    });

    it('mergeAfterGenerations 0 turns the count trigger off while the time trigger still merges', async () => {
      await h.createTable(
        eventsTable('timed', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 60 } }),
      );
      await generations('timed', 5);
      expect((await samplerTick(deps())).merges).toEqual([]);
      const report = await samplerTick(deps(), Date.now() + 61_000);
      expect(report.merges).toHaveLength(1);
    });

    it('skips drained tables and targets in cooldown, and says so', async () => {
      await h.createTable(eventsTable('gated', { settings: { mergeAfterGenerations: 1 } }));
      await generations('gated', 1);
      ports.drained.add('gated');
      expect((await samplerTick(deps())).skipped).toEqual([
        { table: 'gated', kind: 'merge', reason: 'drained' },
      ]);
      ports.drained.clear();
      ports.cooling.add('merge/gated');
      expect((await samplerTick(deps())).skipped).toEqual([
        { table: 'gated', kind: 'merge', reason: 'cooldown' },
      ]);
      ports.cooling.clear();
      expect((await samplerTick(deps())).merges).toHaveLength(1);
    });
  });

  describe('pending warnings and read refusal', () => {
    it('warns at pendingWarnGenerations and not below', async () => {
      await setup({ pendingWarnGenerations: 3 });
      await h.createTable(
        eventsTable('warn', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      await generations('warn', 2);
      expect((await samplerTick(deps())).warnings).toBe(0);
      await generations('warn', 1);
      expect((await samplerTick(deps())).warnings).toBe(1);
      const warning = captured.lines.find((l) => l.msg === 'pending generations high');
      expect(warning).toMatchObject({ level: 40, table: 'warn', shard: 0, pending: 3, warnAt: 3 });
    });

    it('pendingWarnGenerations 0 never warns', async () => {
      await setup({ pendingWarnGenerations: 0 });
      await h.createTable(
        eventsTable('quiet', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      await generations('quiet', 4);
      expect((await samplerTick(deps())).warnings).toBe(0);
      expect(captured.lines.filter((l) => l.msg === 'pending generations high')).toEqual([]);
    });

    it('reads of a shard at pendingRejectGenerations answer READ_AMPLIFICATION until a merge', async () => {
      await setup({ pendingRejectGenerations: 3 });
      await h.createTable(
        eventsTable('amplified', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      await generations('amplified', 2);
      expect(await readAll(h.sluice, 'amplified')).toHaveLength(20);
      await generations('amplified', 1);
      await expect(h.sluice.reads.lookup('amplified', 1)).rejects.toMatchObject({
        code: 'READ_AMPLIFICATION',
        status: 503,
      });
      await expect(h.sluice.reads.scan('amplified', { limit: 5 })).rejects.toMatchObject({
        code: 'READ_AMPLIFICATION',
      });
      await h.sluice.tableWork.merge('amplified');
      expect(await readAll(h.sluice, 'amplified')).toEqual(eventRows(1, 30));
    });
  });

  describe('reconcile and garbage collection', () => {
    it('a Redis that forgot everything makes the next tick sweep the store and re-create lost work', async () => {
      await setup();
      await h.createTable(
        eventsTable('lost', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      await writeRows(h.sluice, 'lost', eventRows(1, 10));
      await h.sluice.shards.seal('lost', 0);
      await forgetEverything(h);
      const report = await samplerTick(deps());
      expect(report.swept).toBe(true);
      expect(await h.scheduler.flush.getJobCounts('waiting', 'delayed', 'active')).not.toEqual({
        waiting: 0,
        delayed: 0,
        active: 0,
      });
      expect((await samplerTick(deps())).swept).toBe(false);
    });

    it('GC never deletes what a reader that began before the commit still needs, and collects it after the grace', async () => {
      await setup({ gcGraceSeconds: 2 });
      await h.createTable(
        eventsTable('gc', { settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 } }),
      );
      await generations('gc', 2);
      const before = await h.parts.manifests.read('gc', 0);
      const oldPaths = before.committed.map((c) => c.path);
      await h.sluice.tableWork.merge('gc');
      await samplerTick(deps());
      for (const path of oldPaths) expect(await h.store.inner.head(path), path).not.toBeNull();
      expect(await h.store.inner.head(walKey('gc', 0, 1))).not.toBeNull();

      await new Promise((resolve) => setTimeout(resolve, 3_200));
      await h.parts.samplerIndex.markDirty('gc', [0]);
      await samplerTick(deps());
      for (const path of oldPaths) expect(await h.store.inner.head(path), path).toBeNull();
      expect(await h.store.inner.head(walKey('gc', 0, 1))).toBeNull();
      const versions = await h.parts.manifests.listVersions('gc', 0);
      expect(versions.length).toBeLessThan(before.version + 1);
      expect((await h.parts.manifests.read('gc', 0)).committed).toEqual([]);
      expect(await readAll(h.sluice, 'gc')).toEqual(eventRows(1, 20));
      await writeRows(h.sluice, 'gc', eventRows(21, 25));
      await h.sluice.shards.seal('gc', 0);
      await h.sluice.shards.flush('gc', 0);
      expect(await readAll(h.sluice, 'gc')).toEqual(eventRows(1, 25));
    });
  });

  describe('garbage collection under a backlog (found by chaos seed 73: merges starved for minutes)', () => {
    /** Three generations merged, so their WAL entries, L0 files and manifest versions are garbage; a fourth is due to merge. */
    async function garbageAndADueMerge(): Promise<void> {
      await setup({ gcGraceSeconds: 2 });
      await h.createTable(
        eventsTable('backlog', { settings: { mergeAfterGenerations: 1, mergeAfterSeconds: 0 } }),
      );
      await generations('backlog', 3);
      await h.sluice.tableWork.merge('backlog');
      await generations('backlog', 1);
      await h.parts.samplerIndex.markDirty('backlog', [0]);
    }

    /** A tick past the grace, whose store deletes through `gated`. */
    function tickPastGrace(gated: GatedStore) {
      return samplerTick({ ...deps(), store: gated }, Date.now() + 60_000);
    }

    it('a tick asks for the due merge before it collects garbage, so a long collection holds no merge back', async () => {
      await garbageAndADueMerge();
      const gated = new GatedStore(h.store);
      const firstDelete = gated.hold('delete', /./);
      const ticking = tickPastGrace(gated);
      await firstDelete.reached;
      expect(ports.requested).toEqual([{ kind: 'merge', table: 'backlog' }]);
      firstDelete.release();
      expect((await ticking).merges).toHaveLength(1);
      expect(await h.store.inner.head(walKey('backlog', 0, 1))).toBeNull();
    });

    it("deletes side by side: one slow delete does not hold up the collection's others", async () => {
      await garbageAndADueMerge();
      const gated = new GatedStore(h.store);
      const firstDelete = gated.hold('delete', /./);
      const deletes = h.store.inject({ op: 'delete', latencyMs: 1 });
      const ticking = tickPastGrace(gated);
      await firstDelete.reached;
      await waitFor(() => deletes.hits >= 3, { message: 'three deletes past the held one' });
      firstDelete.release();
      await ticking;
      for (let seq = 1; seq <= 3; seq++)
        expect(await h.store.inner.head(walKey('backlog', 0, seq))).toBeNull();
      expect(await readAll(h.sluice, 'backlog')).toEqual(eventRows(1, 40));
    });
  });
});

/** Redis restarted empty, as far as this test's namespace can tell. */
async function forgetEverything(h: Harness): Promise<void> {
  await deleteKeys(h.redis, `${h.config.redisPrefix}*`);
}

describe('GC of a table lane (docs/table-wal-lane.md, §5)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });

  afterEach(() => h.close());

  /** Collects as if every manifest version had settled: no grace, and a clock a while ahead. */
  async function collect(table: string) {
    const def = await h.sluice.tables.describe(table);
    await collectTable(h.parts, def, { now: Date.now() + 5_000, graceMs: 0 });
  }

  async function sealAndFlushShards(table: string, shards: number[]) {
    for (const shard of shards) {
      await h.sluice.shards.seal(table, shard);
      await h.sluice.shards.flush(table, shard);
    }
  }

  it("GC keeps a lane entry until every shard's settled cursor passed it; a poisoned shard holds it", async () => {
    await h.createTable(laneTable('lanegc', 3));
    await writeRows(h.sluice, 'lanegc', eventRows(1, 30));
    await sealAndFlushShards('lanegc', [0, 1]);
    await collect('lanegc');
    expect(await laneSeqs(h, 'lanegc')).toEqual([1]);
    await sealAndFlushShards('lanegc', [2]);
    await collect('lanegc');
    expect(await laneSeqs(h, 'lanegc')).toEqual([]);

    await writeRows(h.sluice, 'lanegc', eventRows(31, 60));
    await poison(
      h.parts,
      { table: 'lanegc', shard: 1 },
      { code: 'DATA_CORRUPT', generation: null, cause: 'test' },
    );
    const ones = new Set((await rowsOfShard(h, 'lanegc', 1, eventRows(61, 90))).map((row) => row.id));
    await writeRows(
      h.sluice,
      'lanegc',
      eventRows(61, 90).filter((row) => !ones.has(row.id)),
    );
    await sealAndFlushShards('lanegc', [0, 2]);
    expect((await h.parts.manifests.read('lanegc', 0)).walCursor).toBe(3);
    await collect('lanegc');
    expect(await laneSeqs(h, 'lanegc')).toEqual([2, 3]);

    await h.sluice.shards.reopen('lanegc', 1);
    await sealAndFlushShards('lanegc', [1]);
    await collect('lanegc');
    expect(await laneSeqs(h, 'lanegc')).toEqual([]);
  });

  it("an idle shard's cursor moves past other shards' entries once nothing is sealed: the flush that empties it asks for the seal", async () => {
    await h.createTable(laneTable('laneidle', 2));
    await writeRows(h.sluice, 'laneidle', eventRows(1, 20));
    await h.sluice.shards.seal('laneidle', 1);
    const zeros = await rowsOfShard(h, 'laneidle', 0, eventRows(21, 40));
    await writeRows(h.sluice, 'laneidle', zeros);
    // With generation 1 waiting, a seal of shard 1 cannot pass seq 2, which is shard 0's only.
    await h.sluice.shards.seal('laneidle', 1);
    expect((await h.parts.manifests.read('laneidle', 1)).sealedThrough).toBe(1);

    await h.parts.wal.settle();
    const asked: number[] = [];
    const requestSeal = h.scheduler.requestSeal.bind(h.scheduler);
    h.scheduler.requestSeal = (table, shard, request) => {
      if (table === 'laneidle') asked.push(shard);
      return requestSeal(table, shard, request);
    };
    expect(await h.sluice.shards.flush('laneidle', 1)).toEqual([1]);
    expect(asked).toEqual([1]);
    await h.sluice.shards.seal('laneidle', 1);
    const manifest = await h.parts.manifests.read('laneidle', 1);
    expect([manifest.sealedThrough, manifest.walCursor, manifest.sealed]).toEqual([2, 2, []]);
  });
});

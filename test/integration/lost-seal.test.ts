import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { samplerTick } from '../../shared/scheduler/sampler.ts';
import { samplerDeps } from '../../shared/services/sampler.ts';
import { openSluice } from '../../shared/sluice.ts';
import { walPrefix } from '../../shared/table/paths.ts';
import type { WorkScheduler } from '../../shared/work/work-scheduler.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { deleteKeys } from '../support/redis.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('SLUICE_LOST_SEAL_SECONDS', () => {
  it('is refused below twice the WAL put timeout, naming both variables; accepted at it', () => {
    expect(() =>
      loadConfig({
        SLUICE_LOST_SEAL_SECONDS: '5',
        SLUICE_WAL_PUT_TIMEOUT_MS: '3000',
        SLUICE_WAL_HOLE_TIMEOUT_MS: '5000',
      }),
    ).toThrow(/SLUICE_LOST_SEAL_SECONDS.*SLUICE_WAL_PUT_TIMEOUT_MS/);
    const config = loadConfig({ SLUICE_LOST_SEAL_SECONDS: '6', SLUICE_WAL_PUT_TIMEOUT_MS: '3000' });
    expect(config.scheduler.lostSealSeconds).toBe(6);
    expect(loadConfig({}).scheduler.lostSealSeconds).toBe(30);
  });
});

/**
 * A seal request that never comes: the API process died after its WAL put landed and before
 * it asked for the seal, or the put's answer was lost. No further write reaches the shard,
 * and the sampler's full sweep is minutes away, so only the seal watch can bring it back.
 */
describe('lost seal work comes back within lostSealSeconds', () => {
  let h: Harness;

  afterEach(() => h.close());

  async function setup() {
    h = await createHarness({ scheduler: { lostSealSeconds: 4, samplerIntervalSeconds: 1 } });
    // The sampler's first tick would sweep every shard: record one so only the watch can act.
    await h.parts.samplerIndex.recordSweep(Date.now());
  }

  /** An API process whose every seal request is lost: it dies right after its WAL puts. */
  function dyingApi() {
    const dying: WorkScheduler = {
      requestSeal: async () => {
        throw new Error('the API process was killed before it enqueued the seal');
      },
      requestFlush: (table, shard, retry) => h.scheduler.requestFlush(table, shard, retry),
      requestMerge: (table, options) => h.scheduler.requestMerge(table, options),
      workStatus: (table, id) => h.scheduler.workStatus(table, id),
    };
    return openSluice({
      config: h.config,
      store: h.store,
      redis: h.redis,
      scheduler: dying,
      log: createLogger({ level: 'silent' }),
    }).sluice;
  }

  async function sealedThrough(table: string) {
    return (await h.parts.manifests.read(table, 0)).sealedThrough;
  }

  it('a writer that dies between its WAL put and the seal request: the entry is sealed and flushed', async () => {
    await setup();
    await h.createTable(eventsTable('died'));
    const api = dyingApi();
    const acked = await writeRows(api, 'died', eventRows(1, 10));
    expect(acked.shards).toEqual([{ shard: 0, seq: 1 }]);
    expect(await h.scheduler.seal.count()).toBe(0);

    h.startWorkers(['seal', 'flush', 'sampler']);
    await waitFor(async () => (await h.parts.manifests.read('died', 0)).committed.length === 1, {
      message: 'the orphaned WAL entry sealed and flushed',
      timeoutMs: 20_000,
    });
    expect(await sealedThrough('died')).toBe(1);
    expect(await readAll(h.sluice, 'died')).toEqual(eventRows(1, 10));
  });

  it("a table lane's writer that dies before asking for its seals: every shard its request touched is sealed and flushed", async () => {
    await setup();
    await h.createTable({ ...eventsTable('diedlane', { shards: 4 }), walLane: 'table' });
    const api = dyingApi();
    const acked = await writeRows(api, 'diedlane', eventRows(1, 40));
    expect(acked.shards.map((s) => s.seq)).toEqual([1, 1, 1, 1]);
    expect(await h.scheduler.seal.count()).toBe(0);

    h.startWorkers(['seal', 'flush', 'sampler']);
    await waitFor(
      async () => {
        const manifests = await Promise.all([0, 1, 2, 3].map((s) => h.parts.manifests.read('diedlane', s)));
        return manifests.every((m) => m.walCursor >= 1);
      },
      { message: "every shard's section of the orphaned entry sealed and flushed", timeoutMs: 20_000 },
    );
    expect(await readAll(h.sluice, 'diedlane')).toEqual(eventRows(1, 40));
  });

  it('a WAL put whose answer was lost and whose outcome cannot be read back asks for the seal itself: the entry that landed is sealed', async () => {
    await setup();
    await h.createTable(eventsTable('lost'));
    const lost = h.store.inject({
      op: 'putIfAbsent',
      key: `${walPrefix('lost', 0)}*`,
      fault: 'lostAck',
      times: 1,
    });
    // The writer's own settle finds its seq taken, and cannot read what took it.
    h.store.inject({ op: 'get', key: `${walPrefix('lost', 0)}*`, fault: 'fail', times: 1 });
    h.startWorkers(['seal']);
    await expect(writeRows(h.sluice, 'lost', eventRows(1, 10))).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    expect(lost.hits).toBe(1);
    await waitFor(async () => (await sealedThrough('lost')) === 1, {
      message: 'the entry whose ack was lost sealed',
      timeoutMs: 20_000,
    });
    expect((await h.parts.manifests.read('lost', 0)).sealed.map((g) => g.generation)).toEqual([1]);
  });

  it('a writer marks its shard again once Redis restarted empty, however recently it marked it', async () => {
    await setup();
    await h.createTable(eventsTable('forgot'));
    await writeRows(h.sluice, 'forgot', eventRows(1, 5));
    const far = Date.now() + 60_000;
    expect(await h.parts.sealWatch.takeDue(far)).toEqual([{ table: 'forgot', shard: 0 }]);
    await deleteKeys(h.redis, `${h.config.redisPrefix}*`);
    await writeRows(h.sluice, 'forgot', eventRows(6, 10));
    expect(await h.parts.sealWatch.takeDue(far)).toEqual([{ table: 'forgot', shard: 0 }]);
  });

  it('a watched shard whose writes were all sealed is asked for nothing once it goes quiet', async () => {
    await setup();
    await h.createTable(eventsTable('quiet'));
    await writeRows(h.sluice, 'quiet', eventRows(1, 10));
    await h.sluice.shards.seal('quiet', 0);
    await h.scheduler.seal.obliterate({ force: true });
    const later = Date.now() + 5_000;
    const report = await samplerTick(samplerDeps(h.parts), later);
    expect(report.swept).toBe(false);
    expect(report.lostSeals).toBe(0);
    expect(await h.scheduler.seal.count()).toBe(0);
    expect(await h.parts.sealWatch.takeDue(later)).toEqual([]);
  });
});

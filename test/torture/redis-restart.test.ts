import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../infra/local/redis.ts';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { createRedis } from '../../shared/redis/connection.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const SHARDS = 2;

describe('Redis restarted empty (torture, defect 5: shard state lives on the restarted Redis)', () => {
  let h: Harness;
  let redis: PrivateRedis;

  afterEach(async () => {
    await h.close();
    await redis.stop();
  });

  async function shardsWhere(check: (stats: { unsealedEntries: number; sealed: unknown[] }) => boolean) {
    for (let shard = 0; shard < SHARDS; shard++) {
      if (!check(await h.sluice.shards.stats('amnesia', shard))) return false;
    }
    return true;
  }

  it('I2: every acked row survives, and the sampler alone flushes what Redis forgot (defect 1)', async () => {
    redis = await startPrivateRedis();
    h = await createHarness({ redisUrl: redis.url, scheduler: { samplerIntervalSeconds: 1 } });
    await h.createTable(eventsTable('amnesia', { shards: SHARDS, settings: { sealDelayMs: 5 } }));
    const workers = h.startWorkers(['seal', 'flush', 'sampler']);

    const acked: JsonRow[] = [];
    let failures = 0;
    let writing = true;
    let next = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const i = next++;
        const rows = eventRows(i * 10 + 1, i * 10 + 10);
        try {
          await writeRows(h.sluice, 'amnesia', rows);
          acked.push(...rows);
        } catch {
          failures++;
          await sleep(20);
        }
      }
    });

    await waitFor(() => acked.length >= 300, { message: 'rows acked before the restart' });
    const restarted = createRedis({ redisUrl: redis.url });
    const seqKey = h.shardKeys('amnesia', 0).seq;
    expect(await restarted.exists(seqKey), 'shard state on the Redis the test restarts').toBe(1);
    restarted.disconnect();
    await redis.restart();
    const ackedBeforeRestart = acked.length;
    await waitFor(() => acked.length >= ackedBeforeRestart + 300, {
      message: 'rows acked after the restart',
      timeoutMs: 30_000,
    });
    writing = false;
    await Promise.all(writers);

    // Sealed generations whose flush jobs only Redis knew, and no write left to ask again.
    const flush = workers.workers.get('flush')!;
    await flush.pause();
    const last = eventRows(next * 10 + 1, next * 10 + 40);
    await writeRows(h.sluice, 'amnesia', last);
    acked.push(...last);
    await waitFor(() => shardsWhere((s) => s.unsealedEntries === 0 && s.sealed.length > 0), {
      message: 'both shards sealed, flushes queued',
      timeoutMs: 15_000,
    });
    await redis.restart();
    flush.resume();

    await waitFor(() => shardsWhere((s) => s.unsealedEntries === 0 && s.sealed.length === 0), {
      message: 'everything flushed with no write and no manual reconcile',
      timeoutMs: 30_000,
    });

    acked.sort((a, b) => Number(a.id) - Number(b.id));
    const all = await readAll(h.sluice, 'amnesia', 500);
    const ids = new Set(all.map((r) => r.id));
    for (const row of acked) expect(ids.has(row.id), `acked row ${row.id} lost`).toBe(true);
    expect(all.filter((r) => !acked.some((a) => a.id === r.id)).length).toBeLessThanOrEqual(failures * 10);
    for (let shard = 0; shard < SHARDS; shard++) {
      const manifest = await h.parts.manifests.read('amnesia', shard);
      expect(manifest.committed.map((c) => c.generation)).toEqual(manifest.committed.map((_, i) => i + 1));
      expect(manifest.walCursor).toBe(manifest.sealedThrough);
    }
  });
});

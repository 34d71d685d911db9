import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../infra/local/redis.ts';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('Redis restarted empty (torture)', () => {
  let h: Harness;
  let redis: PrivateRedis;

  afterEach(async () => {
    await h.close();
    await redis.stop();
  });

  it('I2: every acked row survives, and is flushed in order after reconcile()', async () => {
    redis = await startPrivateRedis();
    h = await createHarness({ redisUrl: redis.url });
    await h.createTable(eventsTable('amnesia', { shards: 2, settings: { sealDelayMs: 5 } }));
    h.startWorkers();

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
    await redis.restart();
    const ackedBeforeRestart = acked.length;
    await waitFor(() => acked.length >= ackedBeforeRestart + 300, {
      message: 'rows acked after the restart',
      timeoutMs: 30_000,
    });
    writing = false;
    await Promise.all(writers);

    await h.sluice.reconcile('amnesia');
    await waitFor(
      async () => {
        for (let shard = 0; shard < 2; shard++) {
          const stats = await h.sluice.shardStats('amnesia', shard);
          if (stats.unsealedEntries > 0 || stats.sealed.length > 0) return false;
        }
        return true;
      },
      { message: 'everything flushed after reconcile', timeoutMs: 30_000 },
    );

    acked.sort((a, b) => Number(a.id) - Number(b.id));
    const all = await readAll(h.sluice, 'amnesia', 500);
    const ids = new Set(all.map((r) => r.id));
    for (const row of acked) expect(ids.has(row.id), `acked row ${row.id} lost`).toBe(true);
    expect(all.filter((r) => !acked.some((a) => a.id === r.id)).length).toBeLessThanOrEqual(failures * 10);
    for (let shard = 0; shard < 2; shard++) {
      const manifest = await h.sluice.manifests.read('amnesia', shard);
      expect(manifest.committed.map((c) => c.generation)).toEqual(manifest.committed.map((_, i) => i + 1));
      expect(manifest.walCursor).toBe(manifest.sealedThrough);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRows, eventsTable, flushedGeneration, readAll } from '../support/rows.ts';
import { openS3Runtime, type S3Runtime } from '../support/s3-runtime.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';

/**
 * In Sluice a merge and an optimize of one table never run at once (they share its merge
 * lane), but a commit made beside Sluice, or a zombie merge, can land inside an optimize.
 * The S3 test server holds the optimize's first version-manifest put back long enough for
 * a merge to commit first, so the preemption happens every time, not by luck of timing.
 */
describe('an optimize preempted by a commit on the base (docs/base-table.md, "Optimize")', () => {
  let server: S3TestServer;
  let s3: S3Runtime;

  beforeAll(async () => {
    server = await startS3Server({ bucket: 'preempted' });
    s3 = openS3Runtime(server);
  });

  afterAll(async () => {
    await s3.close();
    await server.stop();
  });

  it('tries again on the new version and never fails; every acked value survives', async () => {
    const { sluice } = s3.runtime;
    await sluice.tables.create(eventsTable('busy'));
    for (let g = 0; g < 6; g++) {
      await flushedGeneration(sluice, 'busy', eventRows(g * 500 + 1, g * 500 + 500, 1));
      await sluice.tableWork.merge('busy');
    }
    const updated = eventRows(1, 3_000, 2).filter((r) => Number(r.id) % 7 === 0);
    await flushedGeneration(sluice, 'busy', updated);
    let merging: Promise<unknown> | null = null;
    const outcome = await sluice.tableWork.optimize('busy', {
      onProgress(kind) {
        if (kind !== 'read' || merging !== null) return;
        merging = server
          .setFaults({
            rules: [{ ops: ['putIfAbsent'], key: '**/_versions/*', latency: { fixedMs: 1_500 }, times: 1 }],
          })
          .then(() => new Promise((resolve) => setTimeout(resolve, 500)))
          .then(() => sluice.tableWork.merge('busy'));
      },
    });
    await merging;
    expect(outcome.conflicts).toBeGreaterThan(0);
    // Recorded on the try after the preemption, over the merge's version.
    expect(outcome.lanceVersion).not.toBeNull();
    expect((await s3.runtime.parts.bases.read('busy')).lanceVersion).toBe(outcome.lanceVersion);
    const latest = new Map(eventRows(1, 3_000, 1).map((r) => [Number(r.id), r]));
    for (const row of updated) latest.set(Number(row.id), row);
    expect(await readAll(sluice, 'busy', 1000)).toEqual([...latest.values()]);
  }, 60_000);
});

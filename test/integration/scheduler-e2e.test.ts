import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('WAL → L0 → base with every queue on real workers (docs/design.md, "The flow")', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('the sampler schedules merges on its own and the data ends up in the base, read back whole', async () => {
    h = await createHarness({ scheduler: { samplerIntervalSeconds: 1 } });
    await h.createTable(
      eventsTable('life', { shards: 2, settings: { mergeAfterGenerations: 2, sealDelayMs: 5 } }),
    );
    h.startWorkers(['seal', 'flush', 'merge', 'sampler']);
    for (let batch = 0; batch < 6; batch++) {
      await writeRows(h.sluice, 'life', eventRows(batch * 20 + 1, batch * 20 + 20));
      await waitFor(
        async () =>
          (await h.sluice.shards.stats('life', 0)).unsealedEntries +
            (await h.sluice.shards.stats('life', 1)).unsealedEntries ===
          0,
        { message: `batch ${batch} sealed` },
      );
    }
    await waitFor(async () => (await h.parts.bases.read('life')).lanceVersion !== null, {
      message: 'a merge scheduled by the sampler',
      timeoutMs: 20_000,
    });
    expect(await readAll(h.sluice, 'life', 17)).toEqual(eventRows(1, 120));
  });
});

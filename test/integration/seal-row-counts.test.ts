import { afterEach, describe, expect, it } from 'vitest';
import { walPrefix } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

describe('the row counts a seal reads from the WAL', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('entries whose completion never reached Redis are read side by side, not one after another', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('counts'));
    for (let w = 0; w < 3; w++) await writeRows(h.sluice, 'counts', eventRows(w * 10 + 1, w * 10 + 10));
    await h.parts.wal.settle();
    // As if every writer died between its put and its completion.
    await h.redis.del(h.shardKeys('counts', 0).walRows);
    const gated = new GatedStore(h.store);
    const sealer = h.otherProcess(gated).sluice;
    const entry = (seq: number) => new RegExp(`^${walPrefix('counts', 0)}0+${seq}\\.arrow$`);
    const gates = [1, 2, 3].map((seq) => gated.hold('get', entry(seq)));
    let reached = 0;
    for (const gate of gates) void gate.reached.then(() => reached++);
    const sealing = sealer.shards.seal('counts', 0);
    // All three row counts are asked for while none has been answered.
    await waitFor(() => reached === 3, { message: 'every entry read before the first answered' });
    for (const gate of gates) gate.release();
    const outcome = await sealing;
    expect(outcome.sealed.map((g) => [g.walFrom, g.walTo, g.walRows])).toEqual([[1, 3, 30]]);
    await h.sluice.shards.flush('counts', 0);
    expect(await readAll(h.sluice, 'counts')).toEqual(eventRows(1, 30));
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { walPrefix } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

describe('WAL lanes of one table', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("a put on one shard does not wait for another shard's put in flight", async () => {
    h = await createHarness({ wal: { groupCommit: true } });
    await h.createTable(eventsTable('lanes', { shards: 2 }));
    const gated = new GatedStore(h.store);
    const writer = h.otherProcess(gated).sluice;
    // One row on each shard, found by where their writes land.
    const rows = eventRows(1, 40);
    const shardOfRow = await Promise.all(
      rows.map(async (row) => (await writeRows(h.sluice, 'lanes', [row])).shards[0]!.shard),
    );
    const onShard = (shard: number) => rows[shardOfRow.indexOf(shard)]!;
    const held = gated.hold('putIfAbsent', new RegExp(`^${walPrefix('lanes', 0)}`));
    const first = writeRows(writer, 'lanes', [onShard(0)]);
    await held.reached;
    const second = await writeRows(writer, 'lanes', [onShard(1)]);
    expect(second.shards.map((s) => s.shard)).toEqual([1]);
    held.release();
    expect((await first).shards.map((s) => s.shard)).toEqual([0]);
  });
});

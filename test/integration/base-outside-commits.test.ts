/**
 * Commits made on the base beside Sluice, with LanceDB: an index (a vector index, a scalar
 * one) changes no row and survives every merge after it; a commit that changes rows is
 * Sluice's to undo, and the merge that undoes it says so in a warn log and a metric.
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { registry } from '../../shared/metrics.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type CapturedLog, captureLog } from '../support/log-capture.ts';
import { lookupJson } from '../support/rows.ts';
import { fullRow, sampleCreate } from '../support/sample-table.ts';

const { lancedb } = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

async function rollbacks(operation: string): Promise<number> {
  const metric = (await registry.getSingleMetric('sluice_base_rollbacks_total')?.get())?.values ?? [];
  return metric.find((v) => v.labels.operation === operation)?.value ?? 0;
}

describe('commits on the base that Sluice did not make', () => {
  let h: Harness;
  let captured: CapturedLog;

  beforeEach(async () => {
    captured = captureLog();
    h = await createHarness({}, { log: captured.log });
  });
  afterEach(() => h.close());

  async function mergedGeneration(from: number, to: number) {
    const def = await h.sluice.tables.describe('events');
    const rows = Array.from({ length: to - from + 1 }, (_, i) => fullRow(from + i));
    await h.sluice.writes.append('events', jsonRowsToRecordBatch(def.schema, rows as never));
    await h.sluice.shards.seal('events', 0);
    await h.sluice.shards.flush('events', 0);
    return h.sluice.tableWork.merge('events');
  }

  async function base() {
    return (await lancedb.connect(`${h.dir.path}/tables/events`)).openTable('base');
  }

  it('an IVF index and a scalar index built with LanceDB survive the merges after them', async () => {
    await h.createTable(sampleCreate({ shards: 1 }));
    await mergedGeneration(1, 300);
    const outside = await base();
    await outside.createIndex('emb', { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 1 }) });
    await outside.createIndex('label', { config: lancedb.Index.bitmap() });
    const indexed = async () => (await (await base()).listIndices()).map((i) => i.columns.join(',')).sort();
    expect(await indexed()).toEqual(['emb', 'id', 'label']);
    for (const from of [301, 311]) {
      const outcome = await mergedGeneration(from, from + 9);
      expect(outcome.merged).toHaveLength(1);
      expect(outcome.rolledBack).toEqual([]);
    }
    expect(await indexed()).toEqual(['emb', 'id', 'label']);
    expect(await lookupJson(h.sluice, 'events', 315)).toMatchObject({ id: 315 });
    expect(captured.warnings()).toEqual([]);
  });

  it('a commit that changes rows is rolled back by the next merge, with a warn log naming it and a metric', async () => {
    await h.createTable(sampleCreate({ shards: 1 }));
    await mergedGeneration(1, 20);
    const before = await rollbacks('Delete');
    const outside = await base();
    await outside.delete('id = 5');
    const deletedAt = await outside.version();
    expect((await mergedGeneration(21, 22)).rolledBack).toEqual([
      { version: deletedAt, operation: 'Delete', effect: 'rows' },
    ]);
    expect(await lookupJson(h.sluice, 'events', 5)).toMatchObject({ id: 5 });
    const reopened = await base();
    expect(await reopened.countRows('id = 5')).toBe(1);
    expect(await rollbacks('Delete')).toBe(before + 1);
    expect(captured.warnings()).toEqual([
      expect.objectContaining({
        table: 'events',
        commits: [{ version: deletedAt, operation: 'Delete' }],
        msg: expect.stringContaining('rolled back commits on the base that Sluice did not make'),
      }),
    ]);
  });
});

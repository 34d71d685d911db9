/**
 * A cursor pins its read's retention cutoff in every process: what a process builds from a
 * pending run and keeps across reads (a search table, which rows a filter passes) is built
 * without any read's cutoff, so a page served by a process that built it later, once rows
 * had expired, still shows the rows the pinned cutoff shows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import type { OpenedSluice, Sluice } from '../../shared/sluice.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { writeRows } from '../support/rows.ts';

const MINUTE_MS = 60_000;
const START = Date.parse('2026-01-01T12:00:00Z');

function logRow(id: number, ageMinutes: number): JsonRow {
  return { id, ts: START - ageMinutes * MINUTE_MS, note: `row ${id}` };
}

const LOGS = {
  name: 'logs',
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'ts', type: 'timestamp[ms]', nullable: false },
      { name: 'note', type: 'utf8', nullable: true },
    ],
  },
  primaryKey: ['id'],
  retention: { column: 'ts', maxAgeSeconds: 3600 },
  settings: { sealDelayMs: 10 },
};

async function ids(sluice: Sluice, rows: Parameters<typeof tableToJsonRows>[1]): Promise<number[]> {
  const def = await sluice.tables.describe('logs');
  return tableToJsonRows(def.schema, rows).map((r) => Number(r.id));
}

describe('retention cutoffs pinned by a cursor', () => {
  let h: Harness;
  let other: OpenedSluice;
  let now: number;

  beforeEach(async () => {
    now = START;
    h = await createHarness({}, { clock: () => now });
    other = h.otherProcess();
  });
  afterEach(async () => {
    await other.parts.wal.settle();
    await h.close();
  });

  it("a filtered search's cursor pins its cutoff in every process: page 2 served elsewhere has the rows the pinned cutoff shows", async () => {
    await h.createTable(LOGS);
    // One WAL entry: id 1 young, ids 2 and 3 a minute from expiring.
    await writeRows(h.sluice, 'logs', [logRow(1, 0), logRow(2, 59), logRow(3, 59)]);
    const first = await h.sluice.reads.search('logs', { filter: 'id > 0', k: 1 });
    expect(await ids(h.sluice, first.rows)).toEqual([1]);
    expect(first.next).not.toBeNull();

    // Two minutes on, ids 2 and 3 have expired for a fresh read; the cursor pinned the cutoff before.
    now = START + 2 * MINUTE_MS;
    const fresh = await other.sluice.reads.search('logs', { filter: 'id > 0', k: 10 });
    expect(await ids(other.sluice, fresh.rows)).toEqual([1]);

    // The same page 2, from the process that served page 1 and from the other one.
    const here = await h.sluice.reads.search('logs', { filter: 'id > 0', k: 10, after: first.next! });
    const there = await other.sluice.reads.search('logs', { filter: 'id > 0', k: 10, after: first.next! });
    expect(await ids(h.sluice, here.rows)).toEqual([2, 3]);
    expect(await ids(other.sluice, there.rows)).toEqual([2, 3]);
  });
});

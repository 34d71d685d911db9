/**
 * Checks that every acked row made it through the pipeline exactly once, for the tests
 * that kill, stop and restart the processes doing the work.
 */
import { tableFromIPC } from 'apache-arrow';
import { expect } from 'vitest';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { keyCodecFor } from '../../shared/arrow/key-codec.ts';
import { readWalRange } from '../../shared/lsm/generation-rows.ts';
import type { Harness } from './harness.ts';
import { readAll } from './rows.ts';
import { waitFor } from './wait-for.ts';

/** Waits until every shard has sealed and flushed everything written to it. */
export async function drained(h: Harness, table: string, shards: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      for (let shard = 0; shard < shards; shard++) {
        const stats = await h.sluice.shards.stats(table, shard);
        if (stats.unsealedEntries > 0 || stats.sealed.length > 0) return false;
      }
      return true;
    },
    { message: `${table} drained`, timeoutMs },
  );
}

/**
 * I2/I3/I11: generations are contiguous from 1, their WAL ranges tile the sealed WAL with
 * no seq in two of them, each L0 file holds exactly the distinct keys of its range, and
 * a full read returns every acked row once. (A client retrying a write refused on one
 * shard rewrites its other shards' rows, so raw row counts may exceed the acked rows.)
 */
export async function assertFlushedExactlyOnce(
  h: Harness,
  table: string,
  shards: number,
  acked: JsonRow[],
  pageSize = 500,
): Promise<void> {
  const def = await h.sluice.tables.describe(table);
  const codec = keyCodecFor(def.schema);
  for (let shard = 0; shard < shards; shard++) {
    const manifest = await h.parts.manifests.read(table, shard);
    expect(manifest.committed.map((c) => c.generation)).toEqual(manifest.committed.map((_, i) => i + 1));
    expect(manifest.walCursor).toBe(manifest.sealedThrough);
    let nextSeq = 1;
    for (const generation of manifest.committed) {
      expect(generation.walFrom).toBe(nextSeq);
      nextSeq = generation.walTo + 1;
      const wal = await readWalRange(h.store, table, shard, generation);
      const distinct = new Set(
        wal.flatMap((e) => codec.encodeRows(e.table)).map((k) => Buffer.from(k).toString('hex')),
      );
      expect(generation.rows).toBe(distinct.size);
      const l0 = await h.store.get(generation.path);
      expect(tableFromIPC(l0!.body).numRows).toBe(generation.rows);
    }
    expect(nextSeq - 1).toBe(manifest.sealedThrough);
  }
  expect(await readAll(h.sluice, table, pageSize)).toEqual(acked);
}

/**
 * Tables on a table WAL lane (docs/table-wal-lane.md) for tests: their definition, which
 * shard each event id routes to, the lane's objects, and what each shard's L0 files hold.
 */
import { tableFromIPC } from 'apache-arrow';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { keyCodecFor } from '../../shared/arrow/key-codec.ts';
import { tableWalPrefix } from '../../shared/table/paths.ts';
import { shardOf } from '../../shared/table/shard-routing.ts';
import type { Harness } from './harness.ts';
import { eventsTable } from './rows.ts';

export function laneTable(name: string, shards: number, settings: Record<string, unknown> = {}) {
  return { ...eventsTable(name, { shards, settings }), walLane: 'table' };
}

/** The event rows of `rows` that route to `shard` of a `shards`-shard events table. */
export async function rowsOfShard(h: Harness, table: string, shard: number, rows: JsonRow[]) {
  const def = await h.sluice.tables.describe(table);
  const codec = keyCodecFor(def.schema);
  return rows.filter((row) => shardOf(codec.encode(codec.parse([row.id])), def.shards) === shard);
}

/** Seqs of the lane's objects, entries and holes. */
export async function laneSeqs(h: Harness, table: string): Promise<number[]> {
  const seqs: number[] = [];
  for await (const page of h.store.inner.list(tableWalPrefix(table))) {
    for (const meta of page) seqs.push(Number(/(\d+)\.arrow$/.exec(meta.key)![1]));
  }
  return seqs;
}

/** Every row the shard's committed L0 files hold, as written, ordered by id. */
export async function l0Rows(h: Harness, table: string, shard: number): Promise<JsonRow[]> {
  const manifest = await h.parts.manifests.read(table, shard);
  const rows: JsonRow[] = [];
  for (const generation of manifest.committed) {
    const file = tableFromIPC((await h.store.inner.get(generation.path))!.body);
    for (const row of file.toArray()) {
      rows.push({ id: Number(row.id), name: row.name, value: row.value });
    }
  }
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Seals and flushes every shard of the table once, lowest first. */
export async function sealAndFlush(h: Harness, table: string, shards: number): Promise<void> {
  for (let shard = 0; shard < shards; shard++) {
    await h.sluice.shards.seal(table, shard);
    await h.sluice.shards.flush(table, shard);
  }
}

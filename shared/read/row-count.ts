/**
 * The live row count of a table at one snapshot: the base's live rows, less the base keys
 * the pending overlay supersedes (by a newer value or a delete), plus the overlay's live
 * keys (on an append-only table, its rows: each has an id of its own); rows below the
 * retention cutoff are not live on either side. Exact, and its cost is the overlay (bounded by `pendingRejectGenerations`) and one
 * key-only base lookup per chunk of overlay keys, not the size of the base.
 */
import { Schema } from 'apache-arrow';
import { type KeyValue, keyCodecFor } from '../arrow/key-codec.ts';
import { toArrowSchema } from '../arrow/schema.ts';
import { countBase, lookupBase } from '../base/pinned-read.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';
import { type ReadDeps, readSnapshot } from './read-snapshot.ts';
import { andVisible } from './retention-cutoff.ts';

/** Keys per base lookup: a filter of this many literals stays a quick index search. */
const KEYS_PER_LOOKUP = 1000;

export interface RowCount {
  /** Live rows: each key once, deleted keys not at all. */
  rows: number;
  /** Live rows of the base dataset alone, at the Lance version the snapshot read. */
  baseRows: number;
  /** Distinct keys written or deleted since the base's version (the pending overlay). */
  pendingKeys: number;
}

export async function countRows(deps: ReadDeps, table: TableDef, signal?: AbortSignal): Promise<RowCount> {
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const snapshot = await readSnapshot(deps, table, shards, { signal });
  const codec = keyCodecFor(table.schema);
  // Runs are newest first: the first run to hold a key decides whether it is live.
  const newest = new Map<string, { live: boolean; key: Uint8Array }>();
  for (const run of snapshot.runs) {
    for (let i = 0; i < run.size; i++) {
      const key = run.key(i);
      const hex = Buffer.from(key).toString('hex');
      if (!newest.has(hex)) newest.set(hex, { live: !run.isDelete(i), key });
    }
  }
  const live = [...newest.values()].filter((k) => k.live).length;
  const version = snapshot.base.lanceVersion;
  if (version === null) return { rows: live, baseRows: 0, pendingKeys: newest.size };
  const visible = andVisible(table, snapshot.cutoff, null);
  const baseRows = await countBase(deps.datasets, table, version, visible);
  // An append-only table's pending rows are new rows: none supersedes a base row.
  if (isAppendOnly(table)) return { rows: baseRows + live, baseRows, pendingKeys: newest.size };
  const keys: KeyValue[][] = [...newest.values()].map((k) => codec.decode(k.key));
  const keySchema = new Schema(
    toArrowSchema(table.schema).fields.filter((f) => table.schema.primaryKey.includes(f.name)),
  );
  let superseded = 0;
  for (let at = 0; at < keys.length; at += KEYS_PER_LOOKUP) {
    signal?.throwIfAborted();
    const found = await lookupBase(
      deps.datasets,
      table,
      version,
      keys.slice(at, at + KEYS_PER_LOOKUP),
      keySchema,
      visible,
    );
    superseded += found.reduce((sum, b) => sum + b.numRows, 0);
  }
  return { rows: baseRows - superseded + live, baseRows, pendingKeys: newest.size };
}

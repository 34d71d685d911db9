/**
 * Point lookup by primary key: the shard's overlay runs are searched newest first and the
 * first run holding the key decides — its row, or nothing when that row is a delete (I10);
 * a key in no run is looked up in the base at the recorded Lance version.
 */
import { Table } from 'apache-arrow';
import { keyCodecFor } from '../arrow/key-codec.ts';
import { lookupBase } from '../base/pinned-read.ts';
import { shardOf } from '../table/shard-routing.ts';
import type { TableDef } from '../table/table-def.ts';
import { projectRows } from './project-rows.ts';
import { type ReadDeps, readSnapshot } from './read-snapshot.ts';
import { find } from './sorted-run.ts';

/** The row with the key (as a client gives it), or null when there is none. */
export async function lookupRow(
  deps: ReadDeps,
  table: TableDef,
  keyInput: unknown,
  signal?: AbortSignal,
): Promise<Table | null> {
  const codec = keyCodecFor(table.schema);
  const values = codec.parse(keyInput);
  const key = codec.encode(values);
  const snapshot = await readSnapshot(deps, table, [shardOf(key, table.shards)], { signal });
  for (const run of snapshot.runs) {
    const i = find(run, key);
    if (i === null) continue;
    return run.isDelete(i) ? null : projectRows(table, [{ batches: run.batches, position: run.position(i) }]);
  }
  if (snapshot.base.lanceVersion === null) return null;
  const found = await lookupBase(deps.datasets, table, snapshot.base.lanceVersion, values);
  return found.length > 0 ? new Table(found) : null;
}

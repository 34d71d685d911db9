/**
 * Lookups by primary key: per key, the shard's overlay runs are searched newest first and
 * the first run holding the key decides — its row, or nothing when that row is a delete or
 * expired (I10); the keys in no run are looked up in the base at the recorded Lance version, all
 * in one filtered query that passes only rows inside retention.
 */
import { Table } from 'apache-arrow';
import { type KeyValue, keyCodecFor } from '../arrow/key-codec.ts';
import { takeRows } from '../arrow/take.ts';
import { lookupBase } from '../base/pinned-read.ts';
import { shardOf } from '../table/shard-routing.ts';
import { assertHasKey, type TableDef } from '../table/table-def.ts';
import { projectRows, type RowRef } from './project-rows.ts';
import { project, projectionOf } from './projection.ts';
import { type ReadDeps, readSnapshot } from './read-snapshot.ts';
import { andVisible } from './retention-cutoff.ts';
import { find } from './sorted-run.ts';

export interface Lookup {
  /** The rows found, in the order their keys were asked for, each key once. */
  rows: Table;
  /** The keys (as given) with no live row, in the order asked. */
  missing: unknown[];
}

/** The row with the key (as a client gives it), or null when there is none. */
export async function lookupRow(
  deps: ReadDeps,
  table: TableDef,
  keyInput: unknown,
  options: { columns?: readonly string[] | null; signal?: AbortSignal } = {},
): Promise<Table | null> {
  const found = await lookupRows(deps, table, [keyInput], options);
  return found.rows.numRows > 0 ? found.rows : null;
}

export async function lookupRows(
  deps: ReadDeps,
  table: TableDef,
  keyInputs: readonly unknown[],
  { columns, signal }: { columns?: readonly string[] | null; signal?: AbortSignal } = {},
): Promise<Lookup> {
  assertHasKey(table, 'a lookup');
  const codec = keyCodecFor(table.schema);
  const projection = projectionOf(table, columns);
  const asked = new Map<string, { input: unknown; values: KeyValue[]; key: Uint8Array }>();
  for (const input of keyInputs) {
    const values = codec.parse(input);
    const key = codec.encode(values);
    const hex = Buffer.from(key).toString('hex');
    if (!asked.has(hex)) asked.set(hex, { input, values, key });
  }
  const shards = [...new Set([...asked.values()].map((k) => shardOf(k.key, table.shards)))].sort(
    (a, b) => a - b,
  );
  const snapshot = await readSnapshot(deps, table, shards, { signal });
  const inOverlay = new Map<string, RowRef | null>();
  const toBase: KeyValue[][] = [];
  for (const [hex, { values, key }] of asked) {
    const run = snapshot.runs.find((r) => find(r, key) !== null);
    if (!run) {
      toBase.push(values);
      continue;
    }
    const i = find(run, key)!;
    inOverlay.set(hex, run.isDelete(i) ? null : { batches: run.batches, position: run.position(i) });
  }
  const base =
    toBase.length > 0 && snapshot.base.lanceVersion !== null
      ? await lookupBase(
          deps.datasets,
          table,
          snapshot.base.lanceVersion,
          toBase,
          projection.read,
          andVisible(table, snapshot.cutoff, null),
        )
      : [];
  // Every row found, overlay then base, as one list of batches; `at` maps a key to its row there.
  const overlayRefs = [...inOverlay.entries()].filter((e): e is [string, RowRef] => e[1] !== null);
  const overlay = project(
    projectRows(
      table,
      overlayRefs.map(([, ref]) => ref),
    ),
    projection.read,
  );
  const at = new Map(overlayRefs.map(([hex], i) => [hex, i]));
  let offset = overlay.numRows;
  for (const batch of base) {
    codec.encodeRows(batch).forEach((key, row) => {
      at.set(Buffer.from(key).toString('hex'), offset + row);
    });
    offset += batch.numRows;
  }
  const indices: number[] = [];
  const missing: unknown[] = [];
  for (const [hex, { input }] of asked) {
    const index = inOverlay.get(hex) === null ? undefined : at.get(hex);
    if (index === undefined) missing.push(input);
    else indices.push(index);
  }
  const sources = [...overlay.batches, ...base];
  const rows = indices.length > 0 ? new Table([takeRows(sources, indices)]) : new Table(projection.read);
  return { rows: project(rows, projection.out), missing };
}

/**
 * LanceDB and the apache-arrow it was built for (18.1), from the `@sluice/lance` workspace
 * package. LanceDB `require`s CommonJS Arrow and checks `instanceof` against that copy, so
 * Sluice's Arrow 21 tables cross to it as IPC bytes decoded by its own Arrow, and back the
 * same way; see docs/base-table.md, "Two Arrows".
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { type RecordBatch, type Table, tableFromIPC, tableToIPC } from 'apache-arrow';

let loaded: typeof SluiceLance | null = null;

/** Loaded on first use: a process that never touches the base (or an HTTP health check) never loads the native module. */
function lance(): typeof SluiceLance {
  loaded ??= createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;
  return loaded;
}

export function lanceDb(): typeof SluiceLance.lancedb {
  return lance().lancedb;
}

export type LanceTable = SluiceLance.lancedb.Table;
export type LanceArrowTable = SluiceLance.arrow.Table;

export function toLanceArrow(table: Table): LanceArrowTable {
  return lanceArrowFromIPC(tableToIPC(table, 'stream'));
}

/** An Arrow IPC stream as LanceDB's Arrow, for a caller that has the bytes (and counts them). */
export function lanceArrowFromIPC(bytes: Uint8Array): LanceArrowTable {
  return lance().arrow.tableFromIPC(bytes);
}

export function fromLanceArrow(table: LanceArrowTable): Table {
  return tableFromIPC(lance().arrow.tableToIPC(table, 'stream'));
}

type LanceQuery = ReturnType<LanceTable['query']> | ReturnType<LanceTable['vectorSearch']>;

/** LanceDB's native batch iterator: each batch comes from Rust as Arrow IPC bytes. */
interface NativeBatches {
  next(): Promise<Uint8Array | null | undefined>;
}

/**
 * A query's rows, in Sluice's Arrow. LanceDB's own `toArrow` decodes each batch from the
 * IPC bytes Rust hands it, and `fromLanceArrow` would encode and decode them again; here
 * they are decoded once, by Sluice's Arrow, from the native iterator LanceDB's
 * `toArrow` reads (its `inner` query, pinned with LanceDB). Without it, the public way.
 */
export async function queryRows(query: LanceQuery): Promise<RecordBatch[]> {
  const inner = await (query as unknown as { inner?: Promise<NativeQuery> | NativeQuery }).inner;
  if (typeof inner?.execute !== 'function') return fromLanceArrow(await query.toArrow()).batches;
  const batches = await inner.execute();
  const rows: RecordBatch[] = [];
  for (let bytes = await batches.next(); bytes; bytes = await batches.next()) {
    rows.push(...tableFromIPC(bytes).batches);
  }
  return rows;
}

interface NativeQuery {
  execute(): Promise<NativeBatches>;
}

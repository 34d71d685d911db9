/**
 * LanceDB and the apache-arrow it was built for (18.1), from the `@sluice/lance` workspace
 * package. LanceDB `require`s CommonJS Arrow and checks `instanceof` against that copy, so
 * Sluice's Arrow 21 tables cross to it as IPC bytes decoded by its own Arrow, and back the
 * same way; see docs/base-table.md, "Two Arrows".
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { type Table, tableFromIPC, tableToIPC } from 'apache-arrow';

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
  return lance().arrow.tableFromIPC(tableToIPC(table, 'stream'));
}

export function fromLanceArrow(table: LanceArrowTable): Table {
  return tableFromIPC(lance().arrow.tableToIPC(table, 'stream'));
}

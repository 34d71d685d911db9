/**
 * LanceDB and the apache-arrow it was built for (18.1), from the `@sluice/lance` workspace
 * package. LanceDB `require`s CommonJS Arrow and checks `instanceof` against that copy, so
 * Sluice's Arrow 21 tables cross to it as IPC bytes decoded by its own Arrow, and back the
 * same way; see docs/base-table.md, "Two Arrows".
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { type Table, tableFromIPC, tableToIPC } from 'apache-arrow';

const lance = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

export const lancedb = lance.lancedb;
export const lanceArrow = lance.arrow;
export type LanceTable = SluiceLance.lancedb.Table;
export type LanceConnection = SluiceLance.lancedb.Connection;
export type LanceArrowTable = SluiceLance.arrow.Table;

export function toLanceArrow(table: Table): LanceArrowTable {
  return lanceArrow.tableFromIPC(tableToIPC(table, 'stream'));
}

export function fromLanceArrow(table: LanceArrowTable): Table {
  return tableFromIPC(lanceArrow.tableToIPC(table, 'stream'));
}

/**
 * Reads of the base dataset at one version: a point lookup through the key index (a
 * filter on the key, which Lance answers from its btree without reading whole data
 * files), and a page of the scan in the dataset's own order (offset and limit on an
 * unfiltered scan of a fixed version, so the same offset always names the same row).
 */
import type { RecordBatch, Table } from 'apache-arrow';
import type { KeyValue } from '../arrow/key-codec.ts';
import { keyColumns, toArrowSchema } from '../arrow/schema.ts';
import { selectColumns } from '../arrow/select-columns.ts';
import type { TableDef } from '../table/table-def.ts';
import type { BaseDatasets } from './base-datasets.ts';
import { keysPredicate } from './key-predicate.ts';
import { fromLanceArrow } from './lance-module.ts';

export async function lookupBase(
  datasets: BaseDatasets,
  table: TableDef,
  version: number,
  key: KeyValue[],
): Promise<RecordBatch[]> {
  const handle = await datasets.at(table, version);
  const found = await handle
    .query()
    .where(keysPredicate(keyColumns(table.schema), [key]))
    .limit(1)
    .toArrow();
  return inTableSchema(table, fromLanceArrow(found));
}

/** Up to `limit` rows from position `offset`; fewer only at the end of the dataset. */
export async function scanBase(
  datasets: BaseDatasets,
  table: TableDef,
  version: number,
  offset: number,
  limit: number,
): Promise<RecordBatch[]> {
  const handle = await datasets.at(table, version);
  try {
    return inTableSchema(table, fromLanceArrow(await handle.query().offset(offset).limit(limit).toArrow()));
  } catch (err) {
    throw await datasets.explainReadFailure(table, version, err);
  }
}

/** Live rows at `version`: Lance answers from the fragments' row counts and deletion files. */
export async function countBase(datasets: BaseDatasets, table: TableDef, version: number): Promise<number> {
  return (await datasets.at(table, version)).countRows();
}

/** Lance's field metadata (the primary key mark) is left behind: rows carry the table's schema. */
function inTableSchema(table: TableDef, rows: Table): RecordBatch[] {
  const schema = toArrowSchema(table.schema);
  return rows.batches.filter((b) => b.numRows > 0).map((b) => selectColumns(schema, b));
}

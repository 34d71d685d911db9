/**
 * Reads of the base dataset at one version: lookups through the key index (a filter on
 * the key, which Lance answers from its btree without reading whole data files), and a
 * page of the scan in the dataset's own order (offset and limit on a scan of a fixed
 * version with a fixed filter, so the same offset always names the same row). Both read
 * only the columns asked for; rows come back in the table's schema, or that projection of it.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { KeyValue } from '../arrow/key-codec.ts';
import { keyColumns, toArrowSchema } from '../arrow/schema.ts';
import { selectColumns } from '../arrow/select-columns.ts';
import type { TableDef } from '../table/table-def.ts';
import type { BaseDatasets } from './base-datasets.ts';
import { keysPredicates } from './key-predicate.ts';
import { queryRows } from './lance-module.ts';

/**
 * The base's rows of those keys (each key once) that `also` passes (a Lance filter, the
 * retention cutoff's), in no particular order; `schema` names the columns read.
 */
export async function lookupBase(
  datasets: BaseDatasets,
  table: TableDef,
  version: number,
  keys: readonly (readonly KeyValue[])[],
  schema: Schema = toArrowSchema(table.schema),
  also: string | null = null,
): Promise<RecordBatch[]> {
  const handle = await datasets.at(table, version);
  const batches: RecordBatch[] = [];
  for (const where of keysPredicates(keyColumns(table.schema), keys)) {
    const query = handle
      .query()
      .select(schema.fields.map((f) => f.name))
      .where(also === null ? where : `(${where}) AND (${also})`)
      .limit(keys.length);
    batches.push(...inSchema(schema, await queryRows(query)));
  }
  return batches;
}

export interface BaseScan {
  /** A Lance filter on the rows; the offset counts only rows that pass it. */
  where: string | null;
  schema: Schema;
}

/** Up to `limit` rows from position `offset`; fewer only at the end of the dataset. */
export async function scanBase(
  datasets: BaseDatasets,
  table: TableDef,
  version: number,
  page: { offset: number; limit: number },
  scan: BaseScan = { where: null, schema: toArrowSchema(table.schema) },
): Promise<RecordBatch[]> {
  const handle = await datasets.at(table, version);
  try {
    let query = handle.query().select(scan.schema.fields.map((f) => f.name));
    if (scan.where !== null) query = query.where(scan.where);
    return inSchema(scan.schema, await queryRows(query.offset(page.offset).limit(page.limit)));
  } catch (err) {
    throw await datasets.explainReadFailure(table, version, err);
  }
}

/**
 * Live rows at `version` that `where` passes: with none, Lance answers from the fragments'
 * row counts and deletion files.
 */
export async function countBase(
  datasets: BaseDatasets,
  table: TableDef,
  version: number,
  where: string | null = null,
): Promise<number> {
  return (await datasets.at(table, version)).countRows(where ?? undefined);
}

/** Lance's field metadata (the primary key mark) is left behind: rows carry the table's schema. */
function inSchema(schema: Schema, rows: readonly RecordBatch[]): RecordBatch[] {
  return rows.filter((b) => b.numRows > 0).map((b) => selectColumns(schema, b));
}

/**
 * Reads of the base dataset at one version: lookups through the key index (a filter on
 * the key, which Lance answers from its btree without reading whole data files), and a
 * page of the scan in the dataset's own order (offset and limit on a scan of a fixed
 * version with a fixed filter, so the same offset always names the same row). Both read
 * only the columns asked for; rows come back in the table's schema, or that projection of it.
 * A column the version does not have yet (added since, docs/design.md, "Schema evolution")
 * reads as null.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { conformColumns } from '../arrow/conform-columns.ts';
import type { KeyValue } from '../arrow/key-codec.ts';
import { keyColumns, toArrowSchema } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import type { BaseDatasets } from './base-datasets.ts';
import { keysPredicates } from './key-predicate.ts';
import { type LanceTable, queryRows } from './lance-module.ts';

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
  const columns = await columnsPresent(handle, names(schema));
  const batches: RecordBatch[] = [];
  for (const where of keysPredicates(keyColumns(table.schema), keys)) {
    const query = handle
      .query()
      .select(columns)
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
    let query = handle.query().select(await columnsPresent(handle, names(scan.schema)));
    if (scan.where !== null) query = query.where(scan.where);
    return inSchema(scan.schema, await queryRows(query.offset(page.offset).limit(page.limit)));
  } catch (err) {
    if (scan.where !== null) await assertHasColumns(handle, table);
    throw await datasets.explainReadFailure(table, version, err);
  }
}

/**
 * A filter failed on a base version without some of the table's columns, or with a column
 * at its width before a widening: Lance cannot evaluate a column it does not have, even as
 * null, nor a literal past the column's width, until the base gets the change at its next merge.
 */
export async function assertHasColumns(handle: LanceTable, table: TableDef): Promise<void> {
  const all = table.schema.fields.map((f) => f.name);
  const present = await columnsPresent(handle, all);
  const narrower = await narrowerInBase(handle, table);
  if (present.length === all.length && narrower.length === 0) return;
  const missing = [...all.filter((name) => !present.includes(name)), ...narrower];
  throw new SluiceError(
    'SCHEMA_CHANGE_PENDING',
    `the base of table "${table.name}" gets column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} at its next merge, asked for when ${missing.length > 1 ? 'they were' : 'it was'} added or widened: retry in a few seconds`,
    { table: table.name, columns: missing },
  );
}

/**
 * Columns widened since the base was written (int32 → int64, float32 → float64), which the
 * base has at their old width until its next merge: Lance refuses a literal past that width.
 */
async function narrowerInBase(handle: LanceTable, table: TableDef): Promise<string[]> {
  const inBase = new Map((await handle.schema()).fields.map((f) => [f.name, String(f.type)]));
  return toArrowSchema(table.schema)
    .fields.filter((f) => WIDENED_FROM[String(f.type)] === inBase.get(f.name))
    .map((f) => f.name);
}

const WIDENED_FROM: Record<string, string> = { Int64: 'Int32', Float64: 'Float32' };

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
  return rows.filter((b) => b.numRows > 0).map((b) => conformColumns(schema, b));
}

function names(schema: Schema): string[] {
  return schema.fields.map((f) => f.name);
}

const namesOf = new WeakMap<LanceTable, Promise<Set<string>>>();

/** Of the columns named, those the dataset version open in `handle` has. */
export async function columnsPresent(handle: LanceTable, wanted: readonly string[]): Promise<string[]> {
  let names = namesOf.get(handle);
  if (!names) {
    names = handle.schema().then((s) => new Set(s.fields.map((f) => f.name)));
    namesOf.set(handle, names);
  }
  const present = await names;
  return wanted.filter((name) => present.has(name));
}

/**
 * The base's side of a change of the table's columns (docs/design.md, "Schema evolution"):
 * Lance's own schema evolution adds every column the table has and the base lacks, as
 * metadata only — no data file is rewritten, and the rows already there read the new
 * columns as null, to Sluice and to any outside reader alike.
 */
import { Schema, Table } from 'apache-arrow';
import { toArrowSchema } from '../arrow/schema.ts';
import type { TableDef } from '../table/table-def.ts';
import { toLanceArrow } from './lance-module.ts';
import type { PreparedBase } from './merge-commit.ts';

/**
 * Adds the missing columns on the prepared version; the version it landed at, and whether
 * that is right after the prepared one (clean, as merge-commit.ts means it). Null when the
 * base has every column.
 */
export async function evolveBase(
  table: TableDef,
  prepared: PreparedBase,
): Promise<{ version: number; clean: boolean } | null> {
  const present = new Set((await prepared.handle.schema()).fields.map((f) => f.name));
  const missing = toArrowSchema(table.schema).fields.filter((f) => !present.has(f.name));
  if (missing.length === 0) return null;
  const fields = toLanceArrow(new Table(new Schema(missing))).schema.fields;
  const { version } = await prepared.handle.addColumns(fields);
  return { version, clean: version === prepared.on + 1 };
}

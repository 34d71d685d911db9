/**
 * The base's side of a change of the table's columns (docs/design.md, "Schema evolution"),
 * by Lance's own schema evolution: every column the table has and the base lacks is added as
 * metadata only — no data file is rewritten, and the rows already there read it as null, to
 * Sluice and to any outside reader alike; a widened column is cast (Lance rewrites that one
 * column and drops its indexes, which the next optimize builds again); a column made nullable
 * changes metadata only.
 */
import { Table } from 'apache-arrow';
import { toArrowSchema } from '../arrow/schema.ts';
import type { TableDef } from '../table/table-def.ts';
import { toLanceArrow } from './lance-module.ts';
import type { PreparedBase } from './merge-commit.ts';

/** The type changes a schema change allows, as Arrow names the types. */
const WIDENINGS = new Set(['Int32 -> Int64', 'Float32 -> Float64']);

/**
 * Brings the prepared version to the table's columns: alters first, then adds; the version
 * the last commit landed at, and whether each landed right after the one before (clean, as
 * merge-commit.ts means it). Null when the base has every column as the table has it.
 */
export async function evolveBase(
  table: TableDef,
  prepared: PreparedBase,
): Promise<{ version: number; clean: boolean } | null> {
  const present = new Map((await prepared.handle.schema()).fields.map((f) => [f.name, f]));
  const wanted = toLanceArrow(new Table(toArrowSchema(table.schema))).schema.fields;
  const missing = wanted.filter((f) => !present.has(f.name));
  const altered = wanted.flatMap((f) => {
    const now = present.get(f.name);
    if (!now) return [];
    const widen = WIDENINGS.has(`${now.type} -> ${f.type}`);
    const relax = f.nullable && !now.nullable;
    if (!widen && !relax) return [];
    return [{ path: f.name, ...(widen ? { dataType: f.type } : {}), ...(relax ? { nullable: true } : {}) }];
  });
  let on = prepared.on;
  let clean = true;
  if (altered.length > 0) {
    const { version } = await prepared.handle.alterColumns(altered);
    clean &&= version === on + 1;
    on = version;
  }
  if (missing.length > 0) {
    const { version } = await prepared.handle.addColumns(missing);
    clean &&= version === on + 1;
    on = version;
  }
  return on === prepared.on ? null : { version: on, clean };
}

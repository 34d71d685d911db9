/**
 * The base's side of a change of the table's columns (docs/design.md, "Schema evolution"),
 * by Lance's own schema evolution: every column the table has and the base lacks is added as
 * metadata only — no data file is rewritten, and the rows already there read it as null, to
 * Sluice and to any outside reader alike; a widened column is cast (Lance rewrites that one
 * column and drops its indexes, which the next optimize builds again); a column made nullable
 * changes metadata only.
 */
import { Table } from 'apache-arrow';
import { sqlLiteral } from '../arrow/column-default.ts';
import { toArrowSchema } from '../arrow/schema.ts';
import { isWidening } from '../arrow/widening.ts';
import type { TableDef } from '../table/table-def.ts';
import { toLanceArrow } from './lance-module.ts';
import type { PreparedBase } from './merge-commit.ts';

async function stillNonNull(
  table: TableDef,
  handle: PreparedBase['handle'],
  names: string[],
): Promise<string[]> {
  const fields = (await handle.schema()).fields;
  return names.filter((name) => {
    const nullable = table.schema.fields.find((c) => c.name === name)?.nullable;
    return nullable && fields.some((f) => f.name === name && !f.nullable);
  });
}

function defaultOf(table: TableDef, name: string): unknown {
  return table.schema.fields.find((c) => c.name === name)?.default;
}

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
    const widen = isWidening(now.type, f.type);
    const relax = f.nullable && !now.nullable;
    if (!widen && !relax) return [];
    return [{ path: f.name, ...(widen ? { dataType: f.type } : {}), ...(relax ? { nullable: true } : {}) }];
  });
  // Columns without a default are metadata only; one with a default writes its value for every row.
  const plain = missing.filter((f) => defaultOf(table, f.name) === undefined);
  const filled = missing.flatMap((f) => {
    const column = table.schema.fields.find((c) => c.name === f.name)!;
    return column.default === undefined
      ? []
      : [{ name: f.name, valueSql: sqlLiteral(column.type, column.default) }];
  });
  const { handle } = prepared;
  const commits = [
    ...(altered.length > 0 ? [() => handle.alterColumns(altered)] : []),
    ...(plain.length > 0 ? [() => handle.addColumns(plain)] : []),
    ...(filled.length > 0 ? [() => handle.addColumns(filled)] : []),
  ];
  let on = prepared.on;
  let clean = true;
  for (const commit of commits) {
    const { version } = await commit();
    clean &&= version === on + 1;
    on = version;
  }
  // Lance declares a column it filled from SQL non-null; the table's column may take nulls.
  const relaxed =
    filled.length === 0
      ? []
      : await stillNonNull(
          table,
          handle,
          filled.map((f) => f.name),
        );
  if (relaxed.length > 0) {
    const { version } = await handle.alterColumns(relaxed.map((path) => ({ path, nullable: true })));
    clean &&= version === on + 1;
    on = version;
  }
  return commits.length === 0 ? null : { version: on, clean };
}

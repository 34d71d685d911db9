/**
 * A read's projection: the columns a client asked for, in the order asked, checked against
 * the table; and the columns a read must fetch to answer it, which add the key columns
 * (reads shadow and match rows by key).
 */
import { Schema, Table } from 'apache-arrow';
import { keyColumns, toArrowSchema } from '../arrow/schema.ts';
import { selectColumns } from '../arrow/select-columns.ts';
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';

export interface Projection {
  /** What the answer holds. */
  out: Schema;
  /** What the read fetches: `out` and the key columns. */
  read: Schema;
}

/** `columns` null or absent: every column. */
export function projectionOf(table: TableDef, columns?: readonly string[] | null): Projection {
  const all = toArrowSchema(table.schema);
  if (!columns) return { out: all, read: all };
  const names = all.fields.map((f) => f.name);
  if (columns.length === 0) {
    throw new SluiceError('INVALID_REQUEST', `name at least one column: one or more of ${names.join(', ')}`);
  }
  const unknown = columns.find((name) => !names.includes(name));
  if (unknown !== undefined) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `unknown column "${unknown.slice(0, 100)}"; the columns of ${table.name} are ${names.join(', ')}`,
      { column: unknown.slice(0, 100), columns: names },
    );
  }
  const twice = columns.find((name, i) => columns.indexOf(name) !== i);
  if (twice !== undefined) {
    throw new SluiceError('INVALID_REQUEST', `column "${twice}" is named twice; name each column once`, {
      column: twice,
    });
  }
  const pick = (wanted: readonly string[]) =>
    new Schema(all.fields.filter((f) => wanted.includes(f.name)).sort(byOrderIn(wanted)));
  const keys = keyColumns(table.schema).map((c) => c.name);
  return { out: pick(columns), read: pick([...columns, ...keys.filter((k) => !columns.includes(k))]) };
}

function byOrderIn(names: readonly string[]) {
  return (a: { name: string }, b: { name: string }) => names.indexOf(a.name) - names.indexOf(b.name);
}

/** The same rows with only the columns of `schema`; nothing is copied. */
export function project(rows: Table, schema: Schema): Table {
  if (rows.batches.length === 0) return new Table(schema);
  return new Table(rows.batches.map((batch) => selectColumns(schema, batch)));
}

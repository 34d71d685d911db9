/**
 * The type changes a schema change allows (docs/design.md, "Schema evolution"): the ones no
 * stored value can notice, each the wider type of its family. The one place the rule lives:
 * a change is checked against it, older rows are cast by it, the base is altered by it.
 */

import type { DataType } from 'apache-arrow';
import { type ColumnKind, columnTypeOfArrow } from './column-type.ts';
import type { TableSchema } from './schema.ts';

const WIDER: Partial<Record<ColumnKind, ColumnKind>> = { int32: 'int64', float32: 'float64' };

/** The type a column of `kind` may widen to, or undefined when it may not. */
export function widerKind(kind: ColumnKind): ColumnKind | undefined {
  return WIDER[kind];
}

/** Whether data of Arrow type `from` (any Arrow library's) is read as `to` by a widening. */
export function isWidening(from: DataType, to: DataType): boolean {
  const a = columnTypeOfArrow(from);
  const b = columnTypeOfArrow(to);
  return a !== null && b !== null && WIDER[a.kind] === b.kind;
}

/**
 * Whether a process holding `schema` would take, rounded, values only a widening of one of
 * its columns allows: every float64 parses as a float32, while an int64 past int32 is refused
 * (and a key column never changes, nor is it ever a float). Such a process asks whether its
 * definition is still the newest before it parses a write (docs/design.md, "Schema evolution").
 */
export function takesWidenedValues(schema: TableSchema): boolean {
  return schema.fields.some((column) => column.type.kind === 'float32');
}

/**
 * The type changes a schema change allows (docs/design.md, "Schema evolution"): the ones no
 * stored value can notice, each the wider type of its family. The one place the rule lives:
 * a change is checked against it, older rows are cast by it, the base is altered by it.
 */

import type { DataType } from 'apache-arrow';
import { type ColumnKind, columnTypeOfArrow } from './column-type.ts';

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

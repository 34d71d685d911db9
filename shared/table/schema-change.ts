/**
 * A change of a table's columns (docs/design.md, "Schema evolution"): columns are only
 * added, and only nullable, so a row valid under version n is valid under n + 1 and a
 * process still on n never writes anything wrong under n + 1. Everything else — a column
 * that must not be null, a default, a changed type, a rename or a drop — is refused with
 * what to do instead, and changes nothing.
 */

import { formatColumnType } from '../arrow/column-type.ts';
import {
  type ColumnDef,
  type FieldJSON,
  MAX_COLUMNS,
  parseField,
  type TableSchema,
} from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';

export interface SchemaChange {
  /** The columns added, in order; each nullable. */
  add: FieldJSON[];
}

/** One step of a table's schema history. */
export interface SchemaChangeRecord {
  schemaVersion: number;
  /** ISO-8601, UTC. */
  at: string;
  change: SchemaChange;
}

export const SCHEMA_CHANGE_BODY = '{"add":[{"name":…,"type":…,"nullable":true},…]}';

function changeError(reason: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('INVALID_SCHEMA_CHANGE', `invalid schema change: ${reason}`, details);
}

const REFUSED_KEYS: Record<string, string> = {
  alter: 'changing a column is not supported yet: add a column of the type you need and write to it',
  rename: 'renaming a column is not supported yet: add a column under the new name and write to it',
  drop: 'dropping a column is not supported yet: stop writing it (it reads as null)',
};

/**
 * The columns of `input` that `current` does not have yet; null when every one of them is
 * there already as asked (a retried change), so that retrying changes nothing.
 */
export function parseSchemaChange(input: unknown, current: TableSchema): SchemaChange | null {
  if (!isPlainObject(input)) throw changeError(`send ${SCHEMA_CHANGE_BODY}`);
  for (const key of Object.keys(input)) {
    if (key in REFUSED_KEYS) throw changeError(REFUSED_KEYS[key]!, { property: key });
    if (key !== 'add') throw changeError(`unknown property "${key}": send ${SCHEMA_CHANGE_BODY}`);
  }
  const { add } = input;
  if (!Array.isArray(add) || add.length === 0) {
    throw changeError(`"add" must be a non-empty array: send ${SCHEMA_CHANGE_BODY}`);
  }
  const existing = new Map(current.fields.map((f) => [f.name.toLowerCase(), f]));
  const seen = new Map<string, string>();
  const added: FieldJSON[] = [];
  add.forEach((column, index) => {
    if (isPlainObject(column) && 'default' in column) {
      throw changeError('a default is not supported yet: add the column nullable', { index });
    }
    const raw = parseField(column, index, seen);
    const nullable = raw.nullable ?? true;
    const field: ColumnDef = { name: raw.name, type: raw.type, nullable };
    const taken = existing.get(raw.name.toLowerCase());
    if (taken) {
      if (sameColumn(taken, field)) return;
      throw changeError(
        `column "${raw.name}" exists already as ${describe(taken)}; add a column under another name`,
        { index, column: raw.name },
      );
    }
    if (!nullable) {
      throw changeError(
        `column "${raw.name}" must be nullable: rows written before it have no value for it`,
        { index, column: raw.name },
      );
    }
    added.push({ name: field.name, type: formatColumnType(field.type), nullable: true });
  });
  if (current.fields.length + added.length > MAX_COLUMNS) {
    throw changeError(
      `at most ${MAX_COLUMNS} columns, the change would make ${current.fields.length + added.length}`,
    );
  }
  return added.length === 0 ? null : { add: added };
}

function sameColumn(a: ColumnDef, b: ColumnDef): boolean {
  return (
    a.name === b.name && formatColumnType(a.type) === formatColumnType(b.type) && a.nullable === b.nullable
  );
}

function describe(column: ColumnDef): string {
  return `"${column.name}" ${formatColumnType(column.type)}${column.nullable ? ' nullable' : ''}`;
}

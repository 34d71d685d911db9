/**
 * A change of a table's columns (docs/design.md, "Schema evolution"). A schema only grows:
 * columns are added nullable or with a default, int32 widens to int64 and float32 to float64,
 * and a non-key column may become nullable — so a row valid under version n is valid under
 * n + 1, and a process still on n never writes anything wrong under n + 1. Everything else — a
 * column with neither, a narrowing, a rename or a drop — is refused with what to do instead,
 * and changes nothing.
 */
import { formatColumnType, parseColumnType } from '../arrow/column-type.ts';
import {
  type ColumnDef,
  type FieldJSON,
  MAX_COLUMNS,
  parseField,
  type TableSchema,
} from '../arrow/schema.ts';
import { widerKind } from '../arrow/widening.ts';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';

/** A column widened or made nullable: what it became, and what it was. */
export interface ColumnAlter {
  name: string;
  type: string;
  nullable: boolean;
  was: { type: string; nullable: boolean };
}

export interface SchemaChange {
  /** The columns added, in order; each nullable or with a default. */
  add: FieldJSON[];
  /** Present only when the change alters a column. */
  alter?: ColumnAlter[];
}

/** One step of a table's schema history. */
export interface SchemaChangeRecord {
  schemaVersion: number;
  /** ISO-8601, UTC. */
  at: string;
  change: SchemaChange;
}

export const SCHEMA_CHANGE_BODY =
  '{"add":[{"name":…,"type":…},…]} and/or {"alter":[{"name":…,"type":"int64"|"float64"},{"name":…,"nullable":true},…]}';

function changeError(reason: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('INVALID_SCHEMA_CHANGE', `invalid schema change: ${reason}`, details);
}

const REFUSED_KEYS: Record<string, string> = {
  rename: 'renaming a column is not supported yet: add a column under the new name and write to it',
  drop: 'dropping a column is not supported yet: stop writing it (it reads as null)',
};

/**
 * What of `input` `current` does not have yet; null when all of it is there already as
 * asked (a retried change), so that retrying changes nothing.
 */
export function parseSchemaChange(
  input: unknown,
  current: TableSchema,
  retentionColumn: string | null = null,
): SchemaChange | null {
  if (!isPlainObject(input)) throw changeError(`send ${SCHEMA_CHANGE_BODY}`);
  for (const key of Object.keys(input)) {
    if (key in REFUSED_KEYS) throw changeError(REFUSED_KEYS[key]!, { property: key });
    if (key !== 'add' && key !== 'alter')
      throw changeError(`unknown property "${key}": send ${SCHEMA_CHANGE_BODY}`);
  }
  if (input.add === undefined && input.alter === undefined) throw changeError(`send ${SCHEMA_CHANGE_BODY}`);
  const add = input.add === undefined ? [] : parseAdds(input.add, current);
  const alter = input.alter === undefined ? [] : parseAlters(input.alter, current, retentionColumn);
  if (current.fields.length + add.length > MAX_COLUMNS) {
    throw changeError(
      `at most ${MAX_COLUMNS} columns, the change would make ${current.fields.length + add.length}`,
    );
  }
  if (add.length === 0 && alter.length === 0) return null;
  return alter.length === 0 ? { add } : { add, alter };
}

function parseAdds(input: unknown, current: TableSchema): FieldJSON[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw changeError(`"add" must be a non-empty array: send ${SCHEMA_CHANGE_BODY}`);
  }
  const existing = new Map(current.fields.map((f) => [f.name.toLowerCase(), f]));
  const seen = new Map<string, string>();
  const added: FieldJSON[] = [];
  input.forEach((column, index) => {
    const raw = parseField(column, index, seen);
    const field: ColumnDef = {
      name: raw.name,
      type: raw.type,
      nullable: raw.nullable ?? true,
      ...(raw.default === undefined ? {} : { default: raw.default }),
    };
    const taken = existing.get(raw.name.toLowerCase());
    if (taken) {
      if (sameColumn(taken, field)) return;
      throw changeError(
        `column "${raw.name}" exists already as ${describe(taken)}; add a column under another name`,
        { index, column: raw.name },
      );
    }
    if (!field.nullable && field.default === undefined) {
      throw changeError(
        `column "${raw.name}" must be nullable or have a default: rows written before it have no value for it`,
        { index, column: raw.name },
      );
    }
    added.push({
      name: field.name,
      type: formatColumnType(field.type),
      nullable: field.nullable,
      ...(field.default === undefined ? {} : { default: field.default }),
    });
  });
  return added;
}

function parseAlters(input: unknown, current: TableSchema, retentionColumn: string | null): ColumnAlter[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw changeError(`"alter" must be a non-empty array: send ${SCHEMA_CHANGE_BODY}`);
  }
  const named = new Set<string>();
  const alters: ColumnAlter[] = [];
  input.forEach((item, index) => {
    if (!isPlainObject(item) || typeof item.name !== 'string') {
      throw changeError(`alter[${index}] must be {"name":…,"type":…} or {"name":…,"nullable":true}`, {
        index,
      });
    }
    for (const key of Object.keys(item)) {
      if (key !== 'name' && key !== 'type' && key !== 'nullable') {
        throw changeError(`alter[${index}]: unknown property "${key}"; only type and nullable can change`, {
          index,
        });
      }
    }
    const { name } = item;
    if (named.has(name)) throw changeError(`column "${name}" is altered twice`, { index, column: name });
    named.add(name);
    const column = current.fields.find((f) => f.name === name);
    if (!column) throw changeError(`no column "${name}"; add it instead`, { index, column: name });
    if (current.primaryKey.includes(name)) {
      throw changeError(
        `"${name}" is a primary key column: shard routing and the key encoding depend on its type`,
        {
          index,
          column: name,
        },
      );
    }
    const alter = alterOf(column, item, index);
    // A null never expires: the retention column stays non-nullable, as create requires.
    if (alter?.nullable && !alter.was.nullable && name === retentionColumn) {
      throw changeError(
        `"${name}" is the retention column: a null would never expire, so it cannot become nullable`,
        { index, column: name },
      );
    }
    if (alter) alters.push(alter);
  });
  return alters;
}

/** The alteration `item` asks of `column`, or null when the column is so already. */
function alterOf(column: ColumnDef, item: Record<string, unknown>, index: number): ColumnAlter | null {
  const was = { type: formatColumnType(column.type), nullable: column.nullable };
  let type = was.type;
  if (item.type !== undefined) {
    const parsed = parseColumnType(item.type);
    if (!parsed.ok)
      throw changeError(`column "${column.name}": ${parsed.reason}`, { index, column: column.name });
    type = formatColumnType(parsed.type);
    const wider = widerKind(column.type.kind);
    if (type !== was.type && wider !== parsed.type.kind) {
      throw changeError(
        `column "${column.name}" cannot change from ${was.type} to ${type}: ${wider ? `it can widen to ${wider}; ` : ''}add a column of the type you need instead`,
        { index, column: column.name },
      );
    }
  }
  let nullable = was.nullable;
  if (item.nullable !== undefined) {
    if (item.nullable !== true) {
      throw changeError(
        `column "${column.name}" cannot become non-nullable: rows already stored may hold nulls`,
        {
          index,
          column: column.name,
        },
      );
    }
    nullable = true;
  }
  if (type === was.type && nullable === was.nullable) return null;
  return { name: column.name, type, nullable, was };
}

/** `schema` after `change`: one version on. */
export function evolveSchema(schema: TableSchema, change: SchemaChange): TableSchema {
  const fields = schema.fields.map((field) => {
    const alter = change.alter?.find((a) => a.name === field.name);
    return alter ? { ...field, type: typeOf(alter.type), nullable: alter.nullable } : field;
  });
  const added = change.add.map((f) => ({
    name: f.name,
    type: typeOf(f.type),
    nullable: f.nullable,
    ...(f.default === undefined ? {} : { default: f.default }),
  }));
  return { ...schema, fields: [...fields, ...added], version: schema.version + 1 };
}

/** `schema` before `change`: one version back. */
export function revertSchema(schema: TableSchema, change: SchemaChange): TableSchema {
  const added = new Set(change.add.map((f) => f.name));
  const fields = schema.fields
    .filter((field) => !added.has(field.name))
    .map((field) => {
      const alter = change.alter?.find((a) => a.name === field.name);
      return alter ? { ...field, type: typeOf(alter.was.type), nullable: alter.was.nullable } : field;
    });
  return { ...schema, fields, version: schema.version - 1 };
}

function typeOf(text: string) {
  const parsed = parseColumnType(text);
  if (!parsed.ok)
    throw new SluiceError('DATA_CORRUPT', `a schema change names type ${text}: ${parsed.reason}`);
  return parsed.type;
}

function sameColumn(a: ColumnDef, b: ColumnDef): boolean {
  return (
    a.name === b.name &&
    formatColumnType(a.type) === formatColumnType(b.type) &&
    a.nullable === b.nullable &&
    // Another default is another column: answering "there already" would keep the old one silently.
    JSON.stringify(a.default) === JSON.stringify(b.default)
  );
}

function describe(column: ColumnDef): string {
  const fallback = column.default === undefined ? '' : ` default ${JSON.stringify(column.default)}`;
  return `"${column.name}" ${formatColumnType(column.type)}${column.nullable ? ' nullable' : ''}${fallback}`;
}

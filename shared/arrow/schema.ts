/**
 * The schema model of a table: its columns and its primary key, validated together (I9:
 * a config that would fail on every insert is refused when the table is created and
 * again whenever it is opened).
 *
 * Input shape: `{fields:[{name, type, nullable?}]}` and `primaryKey: [name, …]`.
 * `nullable` may be left out: it then means false for primary-key columns and true for
 * the others, so the common case needs no ceremony and the stored form is always explicit.
 */
import { Field, Schema } from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';
import { DEFAULT_KEY, parseDefault } from './column-default.ts';
import {
  type ColumnType,
  formatColumnType,
  isKeyKind,
  type KeyKind,
  parseColumnType,
  toArrowType,
} from './column-type.ts';

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
  /** What a write leaving the column out gets, and rows stored before it read (column-default.ts). */
  readonly default?: unknown;
}

export interface TableSchema {
  readonly fields: readonly ColumnDef[];
  /** Column names, in key order (composite keys sort like tuples in this order). */
  readonly primaryKey: readonly string[];
  /** 1 as created; each change of the columns adds one (docs/design.md, "Schema evolution"). */
  readonly version: number;
}

export interface KeyColumn {
  readonly name: string;
  readonly kind: KeyKind;
}

export interface FieldJSON {
  name: string;
  type: string;
  nullable: boolean;
  default?: unknown;
}

export interface SchemaJSON {
  fields: FieldJSON[];
}

/** An identifier every engine that reads our Arrow files (SQL ones included) accepts unquoted. */
export const COLUMN_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Internal columns (the write path adds `_sluice_op` to WAL and L0 files) live under this prefix. */
export const RESERVED_COLUMN_PREFIX = '_sluice_';
/** The columns Lance adds to a search's rows (and Sluice's search answers carry). */
export const SCORE_COLUMNS = ['_distance', '_score'] as const;
export const MAX_COLUMNS = 1024;

const FIELD_KEYS = new Set(['name', 'type', 'nullable', 'default']);

function schemaError(column: string | null, reason: string, extra: Record<string, unknown> = {}) {
  const message =
    column === null ? `invalid schema: ${reason}` : `invalid schema: column "${column}": ${reason}`;
  return new SluiceError('INVALID_SCHEMA', message, { column, reason, ...extra });
}

export interface RawField {
  name: string;
  type: ColumnType;
  nullable: boolean | undefined;
  default?: unknown;
}

/**
 * One field of a schema as a client gives it; `seen` holds the names taken so far, folded
 * to lower case, and gains this one.
 */
export function parseField(input: unknown, index: number, seen: Map<string, string>): RawField {
  if (!isPlainObject(input)) throw schemaError(null, `fields[${index}] must be an object`, { index });
  const { name, type, nullable } = input;
  if (typeof name !== 'string') throw schemaError(null, `fields[${index}].name must be a string`, { index });
  if (name === '') throw schemaError(name, 'name is empty', { index });
  for (const key of Object.keys(input)) {
    if (!FIELD_KEYS.has(key)) throw schemaError(name, `unknown property "${key}"`, { index });
  }
  if (!COLUMN_NAME_PATTERN.test(name)) {
    throw schemaError(
      name,
      'name must start with a letter or _, continue with letters, digits or _, and be at most 128 characters',
      { index },
    );
  }
  if (name === '__proto__') {
    throw schemaError(name, 'reserved: a JavaScript object cannot hold it as a plain property', { index });
  }
  if (name.toLowerCase().startsWith(RESERVED_COLUMN_PREFIX)) {
    throw schemaError(name, `names starting with "${RESERVED_COLUMN_PREFIX}" are reserved for Sluice`, {
      index,
    });
  }
  if ((SCORE_COLUMNS as readonly string[]).includes(name.toLowerCase())) {
    throw schemaError(name, `reserved: searches answer it beside the rows (${SCORE_COLUMNS.join(', ')})`, {
      index,
    });
  }
  // Case-insensitive, because SQL readers of the data files fold identifier case.
  const folded = name.toLowerCase();
  const previous = seen.get(folded);
  if (previous !== undefined) {
    const reason =
      previous === name ? 'duplicate name' : `duplicate name (same as "${previous}" ignoring case)`;
    throw schemaError(name, reason, { index });
  }
  seen.set(folded, name);
  const parsed = parseColumnType(type);
  if (!parsed.ok) throw schemaError(name, parsed.reason, { index });
  if (nullable !== undefined && typeof nullable !== 'boolean') {
    throw schemaError(name, 'nullable must be true or false', { index });
  }
  if (!('default' in input)) return { name, type: parsed.type, nullable };
  const fallback = parseDefault(parsed.type, input.default);
  if (!fallback.ok) throw schemaError(name, fallback.reason, { index });
  return { name, type: parsed.type, nullable, default: fallback.value };
}

/** An omitted or empty primary key makes an append-only table (docs/design.md, "Append-only tables"). */
function parsePrimaryKey(input: unknown, byName: ReadonlyMap<string, RawField>): string[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) {
    throw schemaError(null, 'primaryKey must be an array of column names, or [] for an append-only table');
  }
  const names: string[] = [];
  for (const [index, name] of input.entries()) {
    if (typeof name !== 'string')
      throw schemaError(null, `primaryKey[${index}] must be a column name`, { index });
    if (names.includes(name)) throw schemaError(name, 'listed twice in primaryKey', { index });
    const field = byName.get(name);
    if (!field) throw schemaError(name, 'primary key column is not in the schema', { index });
    if (!isKeyKind(field.type.kind)) {
      throw schemaError(
        name,
        `primary key columns must be int32, int64 or utf8, not ${formatColumnType(field.type)}`,
        { index },
      );
    }
    if (field.nullable === true) throw schemaError(name, 'primary key columns cannot be nullable', { index });
    names.push(name);
  }
  return names;
}

export function parseTableSchema(schema: unknown, primaryKey: unknown, version = 1): TableSchema {
  if (!isPlainObject(schema)) throw schemaError(null, 'schema must be an object {"fields":[…]}');
  for (const key of Object.keys(schema)) {
    if (key !== 'fields') throw schemaError(null, `unknown schema property "${key}"`);
  }
  const { fields } = schema;
  if (!Array.isArray(fields) || fields.length === 0) {
    throw schemaError(null, 'schema.fields must be a non-empty array');
  }
  if (fields.length > MAX_COLUMNS) {
    throw schemaError(null, `at most ${MAX_COLUMNS} columns, got ${fields.length}`);
  }
  const seen = new Map<string, string>();
  const raw = fields.map((field, index) => parseField(field, index, seen));
  const byName = new Map(raw.map((field) => [field.name, field]));
  const key = parsePrimaryKey(primaryKey, byName);
  const keySet = new Set(key);
  return {
    fields: raw.map((f) => {
      if (f.default !== undefined && keySet.has(f.name)) {
        throw schemaError(f.name, 'a primary key column cannot have a default: every row names its key');
      }
      const column = { name: f.name, type: f.type, nullable: f.nullable ?? !keySet.has(f.name) };
      return f.default === undefined ? column : { ...column, default: f.default };
    }),
    primaryKey: key,
    version,
  };
}

export function schemaToJSON(schema: TableSchema): SchemaJSON {
  return {
    fields: schema.fields.map((f) => ({
      name: f.name,
      type: formatColumnType(f.type),
      nullable: f.nullable,
      ...(f.default === undefined ? {} : { default: f.default }),
    })),
  };
}

const arrowSchemas = new WeakMap<TableSchema, Schema>();

/**
 * The table's Arrow schema, built once per schema object: every batch built for the table
 * then carries the same type objects, which Arrow and `takeRows` compare by identity
 * before they compare two types field by field.
 */
export function toArrowSchema(schema: TableSchema): Schema {
  let built = arrowSchemas.get(schema);
  if (!built) {
    built = new Schema(
      schema.fields.map((f) => {
        const metadata =
          f.default === undefined ? undefined : new Map([[DEFAULT_KEY, JSON.stringify(f.default)]]);
        return new Field(f.name, toArrowType(f.type), f.nullable, metadata);
      }),
    );
    arrowSchemas.set(schema, built);
  }
  return built;
}

export function keyColumns(schema: TableSchema): KeyColumn[] {
  return schema.primaryKey.map((name) => {
    const field = schema.fields.find((f) => f.name === name);
    if (!field || !isKeyKind(field.type.kind)) {
      throw new SluiceError('INTERNAL', `primary key column "${name}" is not a key column of this schema`);
    }
    return { name, kind: field.type.kind };
  });
}

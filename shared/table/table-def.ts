/**
 * A table's definition: what `POST /v1/tables` accepts and `table.json` stores. The same
 * validation runs on the request body and on every stored definition that is opened (I9).
 *
 * Shards default to 1: a write then makes one WAL entry however its keys spread, and more
 * shards pay off only once one flush lane falls behind (docs/design.md, "Choosing a shard
 * count"; 1..1024). Shard count is fixed for the table's life, since routing
 * (`shard-routing.ts`) depends on it.
 * Settings are stored in full — the defaults merged in at create — so a later change of
 * the process defaults does not silently change an existing table.
 */

import { parseTableSchema, type SchemaJSON, schemaToJSON, type TableSchema } from '../arrow/schema.ts';
import { type TableSettings, TableSettingsSchema } from '../config.ts';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';
import { type IndexDecl, parseIndexDecls } from './index-decl.ts';
import { parseRetention, type Retention, withRetentionIndex } from './retention.ts';
import { revertSchema, type SchemaChangeRecord } from './schema-change.ts';
import { assertTableName } from './table-name.ts';

export const TABLE_FORMAT_VERSION = 1;
export const DEFAULT_SHARDS = 1;
export const MAX_SHARDS = 1024;

export interface TableDef {
  readonly formatVersion: number;
  readonly name: string;
  /** Columns and primary key. */
  readonly schema: TableSchema;
  readonly shards: number;
  readonly settings: TableSettings;
  /** Indexes declared at create; later ones live beside the definition (index-declarations.ts). */
  readonly indexes: readonly IndexDecl[];
  /** Rows older than this are never read and leave the base (retention.ts); null: kept for ever. */
  readonly retention: Retention | null;
  /** ISO-8601, UTC. */
  readonly createdAt: string;
  /** The changes of the columns since create, oldest first (schema-documents.ts); `schema.version` is the latest. */
  readonly schemaHistory: readonly SchemaChangeRecord[];
  /**
   * Where its writes go: one WAL lane per shard, or one for the table, whose entries hold a
   * request's rows of every shard it touches (docs/table-wal-lane.md). Fixed for the table's life.
   */
  readonly walLane: WalLane;
}

/** `shard`: an entry per shard a write touches; `table`: one entry per write, whatever it touches. */
export type WalLane = 'shard' | 'table';

/** The wire and storage form; `primaryKey` sits beside `schema`, as in the create request. */
export interface TableDefJSON {
  formatVersion: number;
  name: string;
  schema: SchemaJSON;
  primaryKey: string[];
  shards: number;
  settings: TableSettings;
  indexes: IndexDecl[];
  retention: Retention | null;
  createdAt: string;
  /** Absent for a table of shard lanes, as every table stored before the table lane was. */
  walLane?: 'table';
}

const CREATE_KEYS = new Set([
  'name',
  'schema',
  'primaryKey',
  'shards',
  'settings',
  'indexes',
  'retention',
  'walLane',
]);
const STORED_KEYS = new Set([...CREATE_KEYS, 'formatVersion', 'createdAt']);
const SETTING_NAMES = new Set(Object.keys(TableSettingsSchema.shape));

function settingsError(setting: string | null, reason: string): SluiceError {
  const message =
    setting === null ? `invalid settings: ${reason}` : `invalid setting "${setting}": ${reason}`;
  return new SluiceError('INVALID_SETTINGS', message, { setting, reason });
}

/**
 * An append-only table's request goes whole to one shard's lane already (shared/wal/append.ts),
 * one entry whatever the shard count, so only a table with a key takes the table lane.
 */
function parseWalLane(input: unknown, schema: TableSchema): WalLane {
  if (input === undefined || input === 'shard') return 'shard';
  if (input !== 'table') throw settingsError('walLane', 'must be "shard" or "table"');
  if (schema.primaryKey.length === 0) {
    throw settingsError(
      'walLane',
      'an append-only table writes one entry per request already; leave walLane out',
    );
  }
  return 'table';
}

function parseShards(input: unknown): number {
  if (input === undefined) return DEFAULT_SHARDS;
  if (typeof input !== 'number' || !Number.isInteger(input) || input < 1 || input > MAX_SHARDS) {
    throw settingsError('shards', `must be an integer from 1 to ${MAX_SHARDS}`);
  }
  return input;
}

/**
 * Per-table settings over `defaults`, validated by the one TableSettingsSchema. Values must
 * be JSON numbers: the schema coerces (it also reads environment strings), and a client's
 * `null` or `"8"` must not turn into a setting by accident.
 */
export function parseTableSettings(input: unknown, defaults: TableSettings): TableSettings {
  if (input === undefined) return { ...defaults };
  if (!isPlainObject(input)) throw settingsError(null, 'settings must be an object');
  for (const [name, value] of Object.entries(input)) {
    if (!SETTING_NAMES.has(name)) {
      throw settingsError(name, `unknown setting; known: ${[...SETTING_NAMES].join(', ')}`);
    }
    if (typeof value !== 'number') throw settingsError(name, 'must be a number');
  }
  const parsed = TableSettingsSchema.safeParse({ ...defaults, ...input });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw settingsError(issue?.path.join('.') || null, issue?.message ?? 'invalid');
  }
  return parsed.data;
}

function rejectUnknownKeys(input: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) {
      throw new SluiceError('INVALID_REQUEST', `unknown table property "${key}"`, { property: key });
    }
  }
}

/**
 * A table without a primary key: its rows are events, each kept as written and none
 * replacing another (docs/design.md, "Append-only tables"). The one place anything asks.
 */
export function isAppendOnly(def: TableDef): boolean {
  return def.schema.primaryKey.length === 0;
}

/** Refuses a read or write by key (`what`) on an append-only table, before it touches anything. */
export function assertHasKey(def: TableDef, what: string): void {
  if (!isAppendOnly(def)) return;
  throw new SluiceError(
    'TABLE_HAS_NO_KEY',
    `table "${def.name}" is append-only (no primary key): ${what} needs a key; scan it (GET /v1/tables/${def.name}/rows), count it, or search it with a filter`,
    { table: def.name },
  );
}

/** Validates a whole `POST /v1/tables` body. */
export function parseCreateTable(input: unknown, defaults: TableSettings, now: Date = new Date()): TableDef {
  if (!isPlainObject(input))
    throw new SluiceError('INVALID_REQUEST', 'the table definition must be a JSON object');
  rejectUnknownKeys(input, CREATE_KEYS);
  const schema = parseTableSchema(input.schema, input.primaryKey);
  const retention = parseRetention(input.retention, schema);
  return {
    formatVersion: TABLE_FORMAT_VERSION,
    name: assertTableName(input.name),
    schema,
    shards: parseShards(input.shards),
    settings: parseTableSettings(input.settings, defaults),
    indexes: withRetentionIndex(parseIndexDecls(input.indexes, schema), retention),
    retention,
    createdAt: now.toISOString(),
    schemaHistory: [],
    walLane: parseWalLane(input.walLane, schema),
  };
}

/**
 * Validates a stored definition (`table.json`) as strictly as a create request. Settings
 * added to Sluice after the table was created take their value from `defaults`.
 */
export function parseStoredTableDef(input: unknown, defaults: TableSettings): TableDef {
  if (!isPlainObject(input))
    throw new SluiceError('INVALID_REQUEST', 'the table definition must be a JSON object');
  rejectUnknownKeys(input, STORED_KEYS);
  const { formatVersion, createdAt } = input;
  if (formatVersion !== TABLE_FORMAT_VERSION) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `unsupported table format version ${JSON.stringify(formatVersion)}; this Sluice reads ${TABLE_FORMAT_VERSION}`,
      { formatVersion },
    );
  }
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt))) {
    throw new SluiceError('INVALID_REQUEST', 'createdAt must be an ISO-8601 timestamp', { createdAt });
  }
  const schema = parseTableSchema(input.schema, input.primaryKey);
  return {
    formatVersion,
    name: assertTableName(input.name),
    schema,
    shards: parseShards(input.shards),
    settings: parseTableSettings(withoutRetiredSettings(input.settings), defaults),
    // A table stored before indexes could be declared has none.
    indexes: parseIndexDecls(input.indexes, schema),
    // A table stored before retention existed keeps every row.
    retention: parseRetention(input.retention, schema),
    createdAt,
    schemaHistory: [],
    walLane: parseWalLane(input.walLane, schema),
  };
}

/** Settings of the sorted-run base, which the Lance base replaced: a table stored with them still loads. */
const RETIRED_SETTINGS = new Set(['compactAfterRuns', 'maxBaseRuns', 'compactMaxDeadRatio']);

function withoutRetiredSettings(settings: unknown): unknown {
  if (!isPlainObject(settings)) return settings;
  return Object.fromEntries(Object.entries(settings).filter(([name]) => !RETIRED_SETTINGS.has(name)));
}

export function tableDefToJSON(def: TableDef): TableDefJSON {
  return {
    formatVersion: def.formatVersion,
    name: def.name,
    schema: schemaToJSON(def.schema),
    primaryKey: [...def.schema.primaryKey],
    shards: def.shards,
    settings: { ...def.settings },
    indexes: [...def.indexes],
    retention: def.retention,
    createdAt: def.createdAt,
    ...(def.walLane === 'table' ? { walLane: 'table' as const } : {}),
  };
}

const schemasOf = new WeakMap<TableDef, TableSchema[]>();

/**
 * The table's schema as it was at `version` (1 as created): the changes since undone, newest
 * first. Built once per definition, so that every object of one version is read with the
 * same schema object (walSchema and toArrowSchema cache by it).
 */
export function schemaAt(def: TableDef, version: number): TableSchema {
  let schemas = schemasOf.get(def);
  if (!schemas) {
    schemas = [def.schema];
    for (const record of [...def.schemaHistory].reverse()) {
      schemas.unshift(revertSchema(schemas[0]!, record.change));
    }
    schemasOf.set(def, schemas);
  }
  const schema = schemas[version - 1];
  if (!schema) {
    throw new SluiceError(
      'SCHEMA_OUTDATED',
      `table "${def.name}" is at schema version ${def.schema.version} here, and an object names version ${version}`,
      { table: def.name, known: def.schema.version, version },
    );
  }
  return schema;
}

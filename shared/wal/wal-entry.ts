/**
 * A WAL entry is an Arrow IPC file: the table's columns plus `_sluice_op` (upsert or
 * delete). Deletes carry only their key, so every non-key column is nullable in the WAL
 * schema. A hole is an Arrow file too, with no columns and a `sluice.hole` marker, so any
 * Arrow reader can open every object under `wal/`.
 */
import { randomUUID } from 'node:crypto';
import {
  Field,
  Int8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
} from 'apache-arrow';
import { conformColumns, hasColumnsOf } from '../arrow/conform-columns.ts';
import { type TableSchema, toArrowSchema } from '../arrow/schema.ts';
import { takeRows } from '../arrow/take.ts';
import { SluiceError } from '../errors.ts';

export const OP_COLUMN = '_sluice_op';
export const OP_UPSERT = 0;
export const OP_DELETE = 1;
export type Op = typeof OP_UPSERT | typeof OP_DELETE;

const HOLE_MARKER = 'sluice.hole';
/** An entry's own id (encodeWalEntry). */
const ENTRY_ID_KEY = 'sluice.entry';
/** The schema version an entry (and the L0 file built from it) was written under; absent means 1. */
const SCHEMA_VERSION_KEY = 'sluice.schema_version';

export type WalEntry = { kind: 'hole'; seq: number } | { kind: 'rows'; table: Table };

const walSchemas = new WeakMap<TableSchema, Schema>();

/**
 * The schema of WAL entries and L0 files of a table: its columns (non-key nullable) and the
 * op. Its columns' types are the table's Arrow schema's own objects.
 */
export function walSchema(schema: TableSchema): Schema {
  const cached = walSchemas.get(schema);
  if (cached) return cached;
  const keys = new Set(schema.primaryKey);
  const fields = toArrowSchema(schema).fields.map(
    (field) => new Field(field.name, field.type, !keys.has(field.name), field.metadata),
  );
  const metadata = new Map([[SCHEMA_VERSION_KEY, String(schema.version)]]);
  const built = new Schema([...fields, new Field(OP_COLUMN, new Int8(), false)], metadata);
  walSchemas.set(schema, built);
  return built;
}

/** The rows of one write, of the table's schema, and what they do. */
export interface WalWrite {
  batch: RecordBatch;
  op: Op;
  /**
   * The rows of `batch` this write holds, by index, ascending; every row when absent. A
   * request routed to several shards of a table lane hands each shard its rows this way, and
   * the entry gathers them once, not once per shard (`walBatches`).
   */
  rows?: Int32Array;
  /**
   * Called once the entry holding this write has its seq, before its put: an idempotent
   * write notes where it may land (shared/idempotency.ts). A rejection stops the put.
   */
  beforePut?: (put: NotedPut) => Promise<void>;
}

/** Where a write's entry is about to be put: enough for a retry to find out whether it landed. */
export interface NotedPut {
  shard: number;
  seq: number;
  /** The entry's own id (`entryIdOf`). */
  entry: string;
  /** This write's rows in the entry. */
  rows: number;
}

/**
 * Re-labels a batch of the table's schema as WAL rows: of one op, or of one op per row.
 * No column is copied.
 */
export function toWalBatch(schema: TableSchema, batch: RecordBatch, op: Op | Int8Array): RecordBatch {
  const target = walSchema(schema);
  const ops = makeData({
    type: target.fields.at(-1)!.type as Int8,
    length: batch.numRows,
    data: typeof op === 'number' ? new Int8Array(batch.numRows).fill(op) : op,
  });
  const children = [...batch.data.children, ops];
  return new RecordBatch(
    target,
    makeData({ type: new Struct(target.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

/**
 * Below this many rows per write on average, a group's writes are copied into one record
 * batch: one IPC message per write then costs more than the copy (16 writes of 10 rows:
 * 1.27 → 0.79 ms; of 1,000 rows: 1.06 → 1.98 ms, so big writes keep their own messages).
 */
const COMBINE_BELOW_ROWS_PER_WRITE = 200;

/**
 * The entry's bytes. Each entry carries an id of its own in its metadata, so that no two
 * entries are ever the same bytes: a writer that reads back the object at its seq after a put
 * of unknown outcome knows it for its own only if it is (`settleUnknownPut`).
 */
export function encodeWalEntry(
  schema: TableSchema,
  writes: readonly WalWrite[],
  entryId: string = randomUUID(),
): Uint8Array {
  return encodeEntryFile(schema, walBatches(schema, writes), entryId);
}

/** An entry's file of WAL batches: the WAL schema, its metadata adding the entry's id and `metadata`. */
export function encodeEntryFile(
  schema: TableSchema,
  batches: readonly RecordBatch[],
  entryId: string,
  metadata: ReadonlyArray<readonly [string, string]> = [],
): Uint8Array {
  const shared = walSchema(schema);
  const own = new Schema(shared.fields, new Map([...shared.metadata, [ENTRY_ID_KEY, entryId], ...metadata]));
  return tableToIPC(
    new Table(
      own,
      batches.map((b) => new RecordBatch(own, b.data)),
    ),
    'file',
  );
}

/** How many rows `write` holds. */
export function writeRows(write: WalWrite): number {
  return write.rows?.length ?? write.batch.numRows;
}

/**
 * The writes become WAL rows here, not as they arrive: combined writes are gathered into one
 * batch and re-labelled once, since a record batch costs Arrow JS more to build than ten rows
 * cost to copy. Writes that hold some of their batch's rows (`WalWrite.rows`) are copied out
 * anyway, so they are always gathered, with the others: one copy either way, and one batch.
 */
export function walBatches(schema: TableSchema, allWrites: readonly WalWrite[]): RecordBatch[] {
  const writes = underSchema(schema, allWrites);
  let rows = 0;
  for (const write of writes) rows += writeRows(write);
  const whole = writes.every((w) => w.rows === undefined);
  if (whole && (writes.length === 1 || rows >= COMBINE_BELOW_ROWS_PER_WRITE * writes.length)) {
    return writes.map((w) => toWalBatch(schema, w.batch, w.op));
  }
  return [gatherWrites(schema, writes, rows)];
}

/** The writes' rows in order as one WAL batch; a batch several writes hold rows of is read once. */
function gatherWrites(schema: TableSchema, writes: readonly WalWrite[], rows: number): RecordBatch {
  const sources: RecordBatch[] = [];
  const firstRowOf = new Map<RecordBatch, number>();
  let sourceRows = 0;
  const indices = new Int32Array(rows);
  const ops = new Int8Array(rows);
  let at = 0;
  for (const { batch, op, rows: picked } of writes) {
    let first = firstRowOf.get(batch);
    if (first === undefined) {
      first = sourceRows;
      firstRowOf.set(batch, first);
      sources.push(batch);
      sourceRows += batch.numRows;
    }
    const count = picked?.length ?? batch.numRows;
    for (let i = 0; i < count; i++) indices[at + i] = first + (picked ? picked[i]! : i);
    ops.fill(op, at, at + count);
    at += count;
  }
  return toWalBatch(schema, takeRows(sources, indices), ops);
}

/**
 * Writes made under an older schema of the table: their missing columns null, their widened
 * ones cast, each batch once however many writes hold rows of it. A write of the table's
 * columns is kept as it is: a WAL batch takes its columns' data, not its schema, and
 * relabelling every shard's part of every write cost a group of sixteen 10-row writes to
 * sixteen shards a millisecond of its ack.
 */
function underSchema(schema: TableSchema, writes: readonly WalWrite[]): WalWrite[] {
  const target = toArrowSchema(schema);
  const conformed = new Map<RecordBatch, RecordBatch>();
  return writes.map((write) => {
    if (hasColumnsOf(target, write.batch.schema)) return write;
    let batch = conformed.get(write.batch);
    if (!batch) {
      batch = conformColumns(target, write.batch);
      conformed.set(write.batch, batch);
    }
    return { ...write, batch };
  });
}

export function encodeHole(seq: number): Uint8Array {
  const schema = new Schema([], new Map([[HOLE_MARKER, String(seq)]]));
  return tableToIPC(new Table(schema), 'file');
}

export function decodeWalEntry(body: Uint8Array, seq: number): WalEntry {
  let table: Table;
  try {
    table = tableFromIPC(body);
  } catch (err) {
    throw new SluiceError('DATA_CORRUPT', `WAL entry ${seq} is not an Arrow file`, { seq }, { cause: err });
  }
  if (isHole(table)) return { kind: 'hole', seq };
  return { kind: 'rows', table };
}

/** What has a schema: a decoded table, or an IPC file's footer read alone. */
type Schematized = { readonly schema: Schema };

/** The schema version a WAL entry or L0 file names. */
export function schemaVersionOf(source: Schematized): number {
  const value = source.schema.metadata.get(SCHEMA_VERSION_KEY);
  return value === undefined ? 1 : Number(value);
}

/** The id `encodeWalEntry` gave an entry; null for a hole. */
export function entryIdOf(body: Uint8Array, seq: number): string | null {
  const entry = decodeWalEntry(body, seq);
  return entry.kind === 'hole' ? null : entryIdIn(entry.table);
}

/** The id in an entry's schema metadata; null when it has none (a hole). */
export function entryIdIn(source: Schematized): string | null {
  return source.schema.metadata.get(ENTRY_ID_KEY) ?? null;
}

export function isHole(source: Schematized): boolean {
  return source.schema.metadata.has(HOLE_MARKER);
}

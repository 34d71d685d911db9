/**
 * Arrow IPC in and out. Data files (WAL entries, L0 generations, base fragments) are the
 * IPC *file* format so pyarrow and Polars read them as they are (docs/design.md, "Object layout"); clients
 * send and receive the *stream* format. A client stream is decoded into the table's own
 * schema when every column can only mean the table column's values (conform-column.ts:
 * dictionaries, lossless widening, timestamp units and zones, absent nullable columns) and
 * every buffer is in bounds; anything else is INVALID_ROWS, saying what to send, before a
 * byte is written (I9).
 */
import {
  type Data,
  makeData,
  RecordBatch,
  type Schema,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
} from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { columnDataProblem } from './column-data-check.ts';
import { DEFAULT_KEY, defaultData } from './column-default.ts';
import { formatColumnType, toArrowType } from './column-type.ts';
import { conformColumn, fieldProblem, nullColumn, sendHint } from './conform-column.ts';
import { hasFileMagic, streamFramingProblem } from './ipc-framing.ts';
import { rowsError } from './json-rows.ts';
import { type ColumnDef, type TableSchema, toArrowSchema } from './schema.ts';

function asTable(rows: Table | RecordBatch): Table {
  return rows instanceof Table ? rows : new Table([rows]);
}

export function encodeIpcStream(rows: Table | RecordBatch): Uint8Array {
  return tableToIPC(asTable(rows), 'stream');
}

export function encodeIpcFile(rows: Table | RecordBatch): Uint8Array {
  return tableToIPC(asTable(rows), 'file');
}

export function isIpcFile(bytes: Uint8Array): boolean {
  return hasFileMagic(bytes, 'start');
}

function ipcProblem(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return 'no bytes';
  if (isIpcFile(bytes)) {
    return hasFileMagic(bytes, 'end') ? null : 'truncated file (no closing magic)';
  }
  return streamFramingProblem(bytes);
}

/**
 * Decodes an IPC file or stream that Sluice stored. The result views `bytes` without
 * copying. A failure means the stored object is damaged: DATA_CORRUPT, not retryable.
 */
export function decodeIpc(bytes: Uint8Array, source = 'object'): Table {
  const corrupt = (reason: string, cause?: unknown) =>
    new SluiceError(
      'DATA_CORRUPT',
      `cannot decode Arrow IPC (${source}): ${reason}`,
      { source, reason },
      { cause },
    );
  const problem = ipcProblem(bytes);
  if (problem) throw corrupt(problem);
  try {
    return tableFromIPC(bytes);
  } catch (err) {
    throw corrupt(err instanceof Error ? err.message : String(err), err);
  }
}

function describeField(column: ColumnDef): string {
  return `${formatColumnType(column.type)} ${column.nullable ? 'nullable' : 'not null'}`;
}

function streamError(
  reason: string,
  column: string | null = null,
  expected = 'an Arrow IPC stream',
  cause?: unknown,
) {
  return rowsError(`invalid Arrow stream: ${reason}`, null, column, expected, cause);
}

/**
 * Maps each table column to its index in the incoming schema (null: absent, and nullable);
 * refuses an unknown, doubled or absent non-null column and a type that cannot stand for the column's.
 */
function matchSchema(schema: TableSchema, incoming: Schema): Array<number | null> {
  const positions = new Map<string, number>();
  for (const [index, field] of incoming.fields.entries()) {
    if (positions.has(field.name)) throw streamError(`column "${field.name}" appears twice`, field.name);
    positions.set(field.name, index);
  }
  const known = new Set(schema.fields.map((f) => f.name));
  for (const field of incoming.fields) {
    if (!known.has(field.name)) {
      throw streamError(`unknown column "${field.name}"`, field.name, 'a column of the table schema');
    }
  }
  return schema.fields.map((column) => {
    const expected = describeField(column);
    const index = positions.get(column.name);
    const field = index === undefined ? undefined : incoming.fields[index];
    if (index === undefined || !field) {
      if (column.nullable || column.default !== undefined) return null;
      throw streamError(
        `column "${column.name}" is missing: send it, as ${sendHint(column)}`,
        column.name,
        expected,
      );
    }
    const problem = fieldProblem(column, field);
    if (problem) {
      throw streamError(`${problem}, expected ${expected}: send ${sendHint(column)}`, column.name, expected);
    }
    return index;
  });
}

/** The batch's data for one column, in the column's own type, checked. */
function columnData(column: ColumnDef, batch: RecordBatch, position: number | null): Data {
  if (position === null) {
    if (column.default === undefined) return nullColumn(column, batch.numRows);
    const metadata = new Map([[DEFAULT_KEY, JSON.stringify(column.default)]]);
    return defaultData({ type: toArrowType(column.type), metadata }, batch.numRows);
  }
  const data = batch.data.children[position];
  const conformed = data
    ? conformColumn(column, data, columnDataProblem)
    : { ok: false as const, reason: 'no data' };
  if (!conformed.ok) throw streamError(conformed.reason, column.name, describeField(column));
  const problem = columnDataProblem(column, conformed.data);
  if (problem) {
    const fix = problem.startsWith('null values') ? ': send a value in every row' : '';
    throw streamError(`column "${column.name}": ${problem}${fix}`, column.name, describeField(column));
  }
  if (conformed.data.length !== batch.numRows) {
    throw streamError(
      `column "${column.name}" has ${conformed.data.length} values in a batch of ${batch.numRows} rows`,
    );
  }
  return conformed.data;
}

/**
 * Decodes a client's IPC stream (`application/vnd.apache.arrow.stream`) for a table.
 * Columns may come in any order; the result has the table's canonical Arrow schema and
 * column order, without the sender's metadata, and at least one row.
 */
export function decodeArrowStreamForTable(
  schema: TableSchema,
  bytes: Uint8Array,
  arrowSchema?: Schema,
): Table {
  if (bytes.length === 0) throw streamError('empty body');
  if (isIpcFile(bytes)) {
    throw streamError(
      'this is the Arrow IPC file format; send the stream format (application/vnd.apache.arrow.stream)',
    );
  }
  const framing = streamFramingProblem(bytes);
  if (framing) throw streamError(framing);
  let decoded: Table;
  try {
    decoded = tableFromIPC(bytes);
  } catch (err) {
    throw streamError(err instanceof Error ? err.message : String(err), null, 'an Arrow IPC stream', err);
  }
  const positions = matchSchema(schema, decoded.schema);
  const target = arrowSchema ?? toArrowSchema(schema);
  const batches: RecordBatch[] = [];
  for (const batch of decoded.batches) {
    if (batch.numRows === 0) continue;
    const children = schema.fields.map((column, i) =>
      columnData(column, batch, positions[i]!).clone(target.fields[i]!.type),
    );
    batches.push(
      new RecordBatch(target, makeData({ type: new Struct(target.fields), length: batch.numRows, children })),
    );
  }
  if (batches.length === 0) throw streamError('no rows', null, 'at least one row');
  return new Table(batches);
}

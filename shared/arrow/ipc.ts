/**
 * Arrow IPC in and out. Data files (WAL entries, L0 generations, base fragments) are the
 * IPC *file* format so pyarrow and Polars read them as they are (DESIGN.md §2); clients
 * send and receive the *stream* format. A client stream is decoded only into a table
 * whose schema equals the table's — same column names, types and nullability — and whose
 * buffers are all in bounds; anything else is INVALID_ROWS before a byte is written (I9).
 */
import { makeData, RecordBatch, type Schema, Struct, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { columnDataProblem } from './column-data-check.ts';
import { columnTypeOfArrow, formatColumnType } from './column-type.ts';
import { streamFramingProblem } from './ipc-framing.ts';
import { rowsError } from './json-rows.ts';
import { type ColumnDef, type TableSchema, toArrowSchema } from './schema.ts';

const FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"

function asTable(rows: Table | RecordBatch): Table {
  return rows instanceof Table ? rows : new Table([rows]);
}

export function encodeIpcStream(rows: Table | RecordBatch): Uint8Array {
  return tableToIPC(asTable(rows), 'stream');
}

export function encodeIpcFile(rows: Table | RecordBatch): Uint8Array {
  return tableToIPC(asTable(rows), 'file');
}

function hasMagicAt(bytes: Uint8Array, at: number): boolean {
  return at >= 0 && FILE_MAGIC.every((byte, i) => bytes[at + i] === byte);
}

export function isIpcFile(bytes: Uint8Array): boolean {
  return hasMagicAt(bytes, 0);
}

function ipcProblem(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return 'no bytes';
  if (isIpcFile(bytes)) {
    return hasMagicAt(bytes, bytes.length - FILE_MAGIC.length) ? null : 'truncated file (no closing magic)';
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

/** Maps each table column to its index in the incoming schema; refuses any difference. */
function matchSchema(schema: TableSchema, incoming: Schema): number[] {
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
    if (index === undefined || !field)
      throw streamError(`column "${column.name}" is missing`, column.name, expected);
    const type = columnTypeOfArrow(field.type);
    if (!type || formatColumnType(type) !== formatColumnType(column.type)) {
      throw streamError(
        `column "${column.name}" has type ${field.type}, expected ${expected}`,
        column.name,
        expected,
      );
    }
    if (field.nullable !== column.nullable) {
      const got = field.nullable ? 'nullable' : 'not null';
      throw streamError(`column "${column.name}" is ${got}, expected ${expected}`, column.name, expected);
    }
    return index;
  });
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
    const children = schema.fields.map((column, i) => {
      const data = batch.data.children[positions[i]!];
      const problem = data ? columnDataProblem(column, data) : 'no data';
      if (!data || problem) {
        throw streamError(`column "${column.name}": ${problem}`, column.name, describeField(column));
      }
      if (data.length !== batch.numRows) {
        throw streamError(
          `column "${column.name}" has ${data.length} values in a batch of ${batch.numRows} rows`,
        );
      }
      return data.clone(target.fields[i]!.type);
    });
    batches.push(
      new RecordBatch(target, makeData({ type: new Struct(target.fields), length: batch.numRows, children })),
    );
  }
  if (batches.length === 0) throw streamError('no rows', null, 'at least one row');
  return new Table(batches);
}

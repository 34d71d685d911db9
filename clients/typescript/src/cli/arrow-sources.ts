/**
 * The record batches of the columnar formats: an Arrow IPC file or stream, and Parquet,
 * read one row group at a time (parquet-wasm, which reads the file by ranges and hands
 * each group over as Arrow), so a load holds at most one row group and the batches in
 * flight. Types are not mapped here: the server takes Arrow as its usual producers make
 * it and refuses, naming the column and what to send, what cannot map.
 */
import { openAsBlob } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  type Data,
  type RecordBatch,
  RecordBatchReader,
  type Table,
  Table as TableOf,
  tableFromIPC,
} from 'apache-arrow';
import { ParquetFile } from 'parquet-wasm';
import { type Input, isGzip, STDIN } from './input.ts';
import { UsageError } from './usage-error.ts';

/** Whole tables of rows in file order; `consumed()` says how much of the file was read. */
export interface ColumnarSource {
  tables: AsyncGenerator<Table>;
  consumed(): number;
}

export function arrowTables(path: string, openStream: () => Input): ColumnarSource {
  if (path === STDIN || isGzip(path)) {
    const input = openStream();
    return {
      tables: readerTables(RecordBatchReader.from(input.stream as AsyncIterable<Uint8Array>)),
      consumed: input.consumed,
    };
  }
  let consumed = 0;
  const tables = async function* () {
    const handle = await open(path);
    try {
      const size = (await handle.stat()).size;
      for await (const table of readerTables(RecordBatchReader.from(handle))) {
        consumed = Math.min(size, consumed + table.data.reduce((sum, data) => sum + bytesOf(data), 0));
        yield table;
      }
    } finally {
      await handle.close();
    }
  };
  return { tables: tables(), consumed: () => consumed };
}

async function* readerTables(reader: PromiseLike<AsyncIterable<RecordBatch>>): AsyncGenerator<Table> {
  for await (const batch of await reader) yield new TableOf(batch);
}

/** The bytes of a batch's buffers: about what it took of an Arrow file. */
function bytesOf(data: Data): number {
  const own = [data.values, data.valueOffsets, data.nullBitmap, data.typeIds].reduce(
    (sum: number, buffer) => sum + ((buffer as ArrayBufferView | undefined)?.byteLength ?? 0),
    0,
  );
  return data.children.reduce((sum, child) => sum + bytesOf(child), own);
}

export function parquetTables(path: string): ColumnarSource {
  if (path === STDIN)
    throw new UsageError(
      'Parquet is read from a file (its footer is at its end): save standard input to a .parquet file first',
    );
  if (isGzip(path))
    throw new UsageError(`${path}: Parquet compresses its own pages; load the .parquet file itself`);
  let consumed = 0;
  const tables = async function* () {
    const file = await ParquetFile.fromFile(await openAsBlob(path)).catch((err: unknown) => {
      throw new UsageError(`${path}: not Parquet: ${(err as Error).message ?? err}`);
    });
    try {
      const metadata = file.metadata();
      for (let group = 0; group < metadata.numRowGroups(); group++) {
        const read = await file.read({ rowGroups: [group] }).catch((err: unknown) => {
          throw new UsageError(
            `${path}: row group ${group} cannot be read: ${(err as Error).message ?? err}`,
          );
        });
        const table = tableFromIPC(read.intoIPCStream());
        consumed += metadata.rowGroup(group).compressedSize();
        yield table;
      }
    } finally {
      file.free();
    }
  };
  return { tables: tables(), consumed: () => consumed };
}

/**
 * Real rows no one here wrote: vega-datasets' flights-200k (delay, distance, time), loaded
 * several times over under distinct int64 keys, and the table they go into; and the first
 * rows of its flights-3m Parquet file (date, delay, distance, origin, destination) under
 * ids, and the table those go into.
 */
import { openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Table, tableFromArrays, tableFromIPC, vectorFromArray } from 'apache-arrow';
import { ParquetFile } from 'parquet-wasm';

/** The package exports only its index; its data files sit beside it. */
const FLIGHTS_PATH = fileURLToPath(
  new URL('../../node_modules/vega-datasets/data/flights-200k.arrow', import.meta.url),
);

const FLIGHTS_PARQUET = fileURLToPath(
  new URL('../../node_modules/vega-datasets/data/flights-3m.parquet', import.meta.url),
);

export function readFlights(): Promise<Table> {
  return readFile(FLIGHTS_PATH).then((bytes) => tableFromIPC(bytes));
}

/** Pass `pass` over the flights under ids `pass × rows …`: their int16 columns widened to int32. */
export function flightsPass(flights: Table, pass: number): Table {
  const n = flights.numRows;
  const widen = (name: string) => Int32Array.from(flights.getChild(name)!.toArray() as Int16Array);
  return tableFromArrays({
    id: BigInt64Array.from({ length: n }, (_, i) => BigInt(pass * n + i)),
    delay: widen('delay'),
    distance: widen('distance'),
    time: flights.getChild('time')!.toArray() as Float32Array,
  });
}

/** The create body of a 4-shard flights table merged after 5 s. */
export function flightsTable(name: string) {
  return {
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64', nullable: false },
        { name: 'delay', type: 'int32', nullable: true },
        { name: 'distance', type: 'int32', nullable: true },
        { name: 'time', type: 'float32', nullable: true },
      ],
    },
    primaryKey: ['id'],
    shards: 4,
    settings: { mergeAfterSeconds: 5 },
  };
}

/** The first `rows` rows of flights-3m.parquet under ids 0 …, as Arrow (strings LargeUtf8, dates in µs). */
export async function readFlightsParquet(rows: number): Promise<Table> {
  const file = await ParquetFile.fromFile(await openAsBlob(FLIGHTS_PARQUET));
  const parts: Table[] = [];
  for (let group = 0, read = 0; read < rows && group < file.metadata().numRowGroups(); group++) {
    const part = tableFromIPC((await file.read({ rowGroups: [group] })).intoIPCStream());
    parts.push(part);
    read += part.numRows;
  }
  file.free();
  const flights = parts.reduce((all, part) => all.concat(part)).slice(0, rows);
  const column = (name: string) => flights.getChild(name)!;
  return new Table({
    id: vectorFromArray(BigInt64Array.from({ length: flights.numRows }, (_, i) => BigInt(i))),
    date: column('date'),
    delay: column('delay'),
    distance: column('distance'),
    origin: column('origin'),
    destination: column('destination'),
  });
}

/** The create body of a table for `readFlightsParquet`'s rows. */
export function flightsParquetTable(name: string, shards: number) {
  return {
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'date', type: 'timestamp[us]' },
        { name: 'delay', type: 'int64' },
        { name: 'distance', type: 'int64' },
        { name: 'origin', type: 'utf8' },
        { name: 'destination', type: 'utf8' },
      ],
    },
    primaryKey: ['id'],
    shards,
  };
}

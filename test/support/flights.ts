/**
 * Real rows no one here wrote: vega-datasets' flights-200k (delay, distance, time), loaded
 * several times over under distinct int64 keys, and the table they go into.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Table, tableFromArrays, tableFromIPC } from 'apache-arrow';

/** The package exports only its index; its data files sit beside it. */
const FLIGHTS_PATH = fileURLToPath(
  new URL('../../node_modules/vega-datasets/data/flights-200k.arrow', import.meta.url),
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

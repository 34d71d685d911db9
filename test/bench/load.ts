import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Table, tableToIPC } from 'apache-arrow';
import { Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { load } from '../../clients/typescript/src/cli/load.ts';
import type { FileFormat } from '../../clients/typescript/src/cli/sources.ts';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import { flightsParquetTable, readFlightsParquet } from '../support/flights.ts';
import { serveProcess } from '../support/server-process.ts';
import { benchDir } from './bench-dirs.ts';
import { type BenchResult, progress } from './measure.ts';

const ROWS = Number(process.env.BENCH_LOAD_ROWS) || 500_000;
const FORMATS: FileFormat[] = ['arrow', 'parquet', 'json', 'jsonl', 'csv'];
const EXTENSION: Record<FileFormat, string> = {
  arrow: 'arrow',
  parquet: 'parquet',
  json: 'json',
  jsonl: 'jsonl',
  csv: 'csv',
};

/** The rows as the text formats carry them: timestamps as ISO-8601, int64 as numbers. */
function* textRows(table: Table): Generator<Record<string, unknown>> {
  for (const row of table) {
    const r = row.toJSON();
    yield {
      id: Number(r.id),
      date: new Date(Number(r.date)).toISOString(),
      delay: Number(r.delay),
      distance: Number(r.distance),
      origin: r.origin,
      destination: r.destination,
    };
  }
}

async function writeFiles(dir: string, table: Table): Promise<Record<FileFormat, string>> {
  const path = (format: FileFormat) => join(dir, `flights.${EXTENSION[format]}`);
  const lines = [...textRows(table)].map((row) => JSON.stringify(row));
  const csv = ['id,date,delay,distance,origin,destination'];
  for (const row of textRows(table)) csv.push(Object.values(row).join(','));
  const properties = new WriterPropertiesBuilder().build();
  await Promise.all([
    writeFile(path('arrow'), tableToIPC(table, 'file')),
    writeFile(
      path('parquet'),
      writeParquet(WasmTable.fromIPCStream(tableToIPC(table, 'stream')), properties),
    ),
    writeFile(path('json'), `[${lines.join(',\n')}]\n`),
    writeFile(path('jsonl'), `${lines.join('\n')}\n`),
    writeFile(path('csv'), `${csv.join('\n')}\n`),
  ]);
  return Object.fromEntries(FORMATS.map((format) => [format, path(format)])) as Record<FileFormat, string>;
}

export async function* run(): AsyncGenerator<BenchResult> {
  const dir = await benchDir('load');
  progress(`load: reading ${ROWS} flights rows and writing them in ${FORMATS.length} formats`);
  const files = await writeFiles(dir, await readFlightsParquet(ROWS));
  const served = await serveProcess('bench-load', { role: 'all' });
  const client = new SluiceClient({ url: served.server.url, token: served.tokens.all });
  const runs: Array<{ format: FileFormat; turn: number; seconds: number; fileMb: number }> = [];
  try {
    for (const [turn, order] of [FORMATS, [...FORMATS].reverse()].entries()) {
      for (const format of order) {
        const table = `flights-${format}-${turn}`;
        await client.createTable(flightsParquetTable(table, 4) as Parameters<SluiceClient['createTable']>[0]);
        progress(`load: ${format}, turn ${turn + 1}`);
        const started = performance.now();
        const summary = await load(client, table, files[format], {
          batchRows: 5000,
          concurrency: 4,
          checkpoint: join(dir, `${table}.checkpoint.json`),
          progress: false,
          fresh: true,
          onError: 'stop',
        });
        const seconds = (performance.now() - started) / 1000;
        if (summary.rows !== ROWS) throw new Error(`${format} loaded ${summary.rows} of ${ROWS} rows`);
        runs.push({ format, turn, seconds, fileMb: (await stat(files[format])).size / 2 ** 20 });
      }
    }
  } finally {
    await served.stop();
  }
  const rate = (r: { seconds: number }) => ROWS / r.seconds;
  const arrow = runs.filter((r) => r.format === 'arrow');
  const arrowRate = arrow.reduce((sum, r) => sum + rate(r), 0) / arrow.length;
  for (const r of runs) {
    yield {
      bench: 'load',
      case: `load-${r.format}-${ROWS}rows`,
      system: 'sluice-cli',
      turn: r.turn + 1,
      rows: ROWS,
      seconds: Math.round(r.seconds * 100) / 100,
      rowsPerSec: Math.round(rate(r)),
      ratioToArrow: Math.round((rate(r) / arrowRate) * 100) / 100,
      fileMb: Math.round(r.fileMb * 10) / 10,
    };
  }
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tableToIPC } from 'apache-arrow';
import { Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import { runCli, spawnCli } from '../support/cli-process.ts';
import { flightsParquetTable, readFlightsParquet } from '../support/flights.ts';
import { type HttpProxy, startHttpProxy } from '../support/http-proxy.ts';
import { type ServedProcess, serveProcess } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

/** Rows of the flights file loaded (a suite keeps its time), written in row groups of a quarter of that. */
const PARQUET_ROWS = 50_000;
const PARQUET_GROUP_ROWS = 12_500;
const CSV_ROWS = 50_000;
const BAD_LINES = [1_234, 20_002, 49_999];
const BATCH_ROWS = 1000;

const flightsTable = flightsParquetTable('flights', 2);

const rowsTable = (name: string) => ({
  name,
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8' },
      { name: 'score', type: 'float64', nullable: true },
    ],
  },
  primaryKey: ['id'],
  shards: 2,
});

/** Line `n` of the file (the header is line 1) holds id n - 2; three of them a score that is not a number. */
function csvWithBadRows(): string {
  const lines = ['id,name,score'];
  for (let id = 0; id < CSV_ROWS; id++) {
    const line = id + 2;
    lines.push(`${id},name-${id},${BAD_LINES.includes(line) ? 'not-a-number' : id / 2}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('sluice load: Parquet, JSON arrays, gzip, standard input, and bad rows set aside', () => {
  let served: ServedProcess;
  let dir: TempDir;
  let client: SluiceClient;
  const env = () => ({ url: served.server.url, token: served.tokens.all });

  beforeAll(async () => {
    served = await serveProcess('cli-load-formats', { role: 'all' });
    dir = await createTempDir('cli-load-formats');
    client = new SluiceClient(env());
    for (const definition of [flightsTable, rowsTable('texts'), rowsTable('skips'), rowsTable('stops')]) {
      await client.createTable(definition as Parameters<SluiceClient['createTable']>[0]);
    }
  });

  afterAll(async () => {
    await dir?.cleanup();
    expect(await served?.stop()).toBe(0);
  });

  it('loads a Parquet file of several row groups: the count and 1,000 random rows match the source', async () => {
    const source = await readFlightsParquet(PARQUET_ROWS);
    const path = join(dir.path, 'flights.parquet');
    const properties = new WriterPropertiesBuilder().setMaxRowGroupSize(PARQUET_GROUP_ROWS).build();
    await writeFile(path, writeParquet(WasmTable.fromIPCStream(tableToIPC(source, 'stream')), properties));

    // A table whose delay is int32 cannot take the file's Int64: refused before any row lands.
    const narrow = structuredClone({ ...flightsTable, name: 'narrow-flights' });
    narrow.schema.fields[2]!.type = 'int32';
    await client.createTable(narrow as Parameters<SluiceClient['createTable']>[0]);
    const refused = await runCli(['load', 'narrow-flights', path, '--no-progress'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`^sluice: ${path}: rows 1-5000: INVALID_ROWS: [^\\n]*"delay"[^\\n]*Int64[^\\n]*\\n$`),
    );
    expect((await client.countRows('narrow-flights')).rows).toBe(0);

    const loaded = await runCli(['load', 'flights', path, '--batch-rows', '10000', '--no-progress'], env());
    expect(loaded.stderr).toMatch(new RegExp(`^loaded ${source.numRows} rows in \\d+ batches`));
    expect(loaded.code).toBe(0);
    expect((await client.countRows('flights')).rows).toBe(source.numRows);

    const picked = [
      ...new Set(Array.from({ length: 2000 }, () => Math.floor(Math.random() * source.numRows))),
    ].slice(0, 1000);
    const { rows } = await client.lookupMany('flights', picked);
    expect(rows.map((row) => row.id)).toEqual(picked);
    rows.forEach((row, i) => {
      const want = source.get(picked[i]!)!.toJSON();
      expect([row.id, row.date, row.delay, row.distance, row.origin, row.destination]).toEqual([
        picked[i],
        Number(want.date) * 1000, // Arrow JS reads a timestamp as milliseconds; the column is in µs
        Number(want.delay),
        Number(want.distance),
        want.origin,
        want.destination,
      ]);
    });
  }, 300_000);

  it('loads a JSON array, gzipped JSON lines and CSV from standard input', async () => {
    const rows = Array.from({ length: 3000 }, (_, id) => ({ id, name: `n-${id}`, score: id / 4 }));
    const array = join(dir.path, 'rows.json');
    await writeFile(array, JSON.stringify(rows.slice(0, 1000), null, 1));
    const gzipped = join(dir.path, 'rows.jsonl.gz');
    await writeFile(
      gzipped,
      gzipSync(
        rows
          .slice(1000, 2000)
          .map((r) => JSON.stringify(r))
          .join('\n'),
      ),
    );
    const csv = ['id,name,score', ...rows.slice(2000).map((r) => `${r.id},${r.name},${r.score}`)].join('\n');

    for (const file of [array, gzipped]) {
      const run = await runCli(['load', 'texts', file, '--no-progress'], env());
      expect([file, run.code, run.stderr]).toEqual([
        file,
        0,
        expect.stringMatching(/^loaded 1000 rows in 1 batch /),
      ]);
    }
    const piped = await runCli(['load', 'texts', '-', '--format', 'csv'], env(), Buffer.from(csv));
    expect(piped.stderr).toMatch(/^loaded 1000 rows in 1 batch /);
    const scanned = [];
    for await (const row of client.scan('texts', { pageSize: 1000 })) scanned.push(row);
    expect(scanned.sort((a, b) => Number(a.id) - Number(b.id))).toEqual(rows);

    // Files that are not what their names say, or not there: one line each, no stack trace.
    const notGzip = join(dir.path, 'not-gzip.jsonl.gz');
    await writeFile(notGzip, '{"id": 1}\n');
    const missing = join(dir.path, 'missing.csv');
    const twoLines = join(dir.path, 'two-lines.csv');
    await writeFile(twoLines, 'id,name,score\n1,"a\nb",0.5\n2,c,oops\n');
    const failures = [
      [notGzip, new RegExp(`^sluice: ${notGzip}: not gzip: [^\n]+\n$`)],
      [missing, new RegExp(`^sluice: ENOENT: [^\n]*${missing}[^\n]*\n$`)],
      // Line 2 holds a quoted field over two lines: the refused row starts on line 4.
      [twoLines, new RegExp(`^sluice: ${twoLines}:4: INVALID_ROWS: [^\n]*"score"[^\n]*\n$`)],
    ] as const;
    for (const [file, message] of failures) {
      const run = await runCli(['load', 'texts', file, '--no-progress'], env());
      expect([file, run.code, run.stderr]).toEqual([file, 1, expect.stringMatching(message)]);
    }

    const unclosed = join(dir.path, 'unclosed.json');
    await writeFile(unclosed, '[{"id": 1, "name": "a"},\n{"id": 2, "name": "b"}');
    const broken = await runCli(['load', 'texts', unclosed, '--no-progress'], env());
    expect([broken.code, broken.stderr]).toEqual([
      1,
      `sluice: ${unclosed}: row 2: the array is not closed (the file ends inside it)\n`,
    ]);
  });

  it('--on-error stop names the line of the refused row, and what was wrong with it', async () => {
    const path = join(dir.path, 'stops.csv');
    await writeFile(path, csvWithBadRows());
    const run = await runCli(
      ['load', 'stops', path, '--batch-rows', String(BATCH_ROWS), '--no-progress'],
      env(),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^sluice: ${path}:${BAD_LINES[0]}: INVALID_ROWS: [^\\n]*"score"[^\\n]*\\n$`),
    );
  });

  it('--on-error skip sets 3 bad rows of 50,000 aside with their lines, killed halfway and resumed the same', async () => {
    const path = join(dir.path, 'skips.csv');
    const rejectsPath = join(dir.path, 'skips.rejects.jsonl');
    await writeFile(path, csvWithBadRows());
    const args = [
      'load',
      'skips',
      path,
      '--batch-rows',
      String(BATCH_ROWS),
      '--on-error',
      'skip',
      '--rejects',
      rejectsPath,
    ];
    // Hold the answer of the 31st batch sent: by then the first two bad rows were refused and
    // set aside, and the kill leaves acked batches past the checkpoint.
    let posts = 0;
    const proxy: HttpProxy = await startHttpProxy(served.server.url, (req) => {
      if (req.method !== 'POST' || !req.path.endsWith('/rows')) return 'forward';
      return posts++ === 32 ? 'hold' : 'forward';
    });
    try {
      const first = spawnCli([...args, '--no-progress'], { url: proxy.url, token: served.tokens.all });
      await waitFor(
        async () =>
          JSON.parse(await readFile(`${path}.sluice-load.json`, 'utf8').catch(() => '{}')).rejected === 2,
        {
          message: 'the checkpoint to record two rejects',
          timeoutMs: 60_000,
        },
      );
      await waitFor(() => proxy.seen.filter((r) => r.action === 'hold').length === 1, {
        message: 'the held batch',
      });
      first.child.kill('SIGKILL');
      await first.exited;
    } finally {
      await proxy.close();
    }
    const second = await runCli([...args, '--no-progress'], env());
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /resumed after batch \d+\)\nrejected 3 rows, each with its place and reason in /,
    );
    expect((await client.countRows('skips')).rows).toBe(CSV_ROWS - BAD_LINES.length);

    const rejects = (await readFile(rejectsPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejects.map((r) => [r.file, r.line, r.code, r.values.id])).toEqual(
      BAD_LINES.map((line) => [path, line, 'INVALID_ROWS', String(line - 2)]),
    );
    for (const reject of rejects) expect(reject.reason).toContain('"score"');
    const { rows, missing } = await client.lookupMany('skips', [0, 1_231, 1_232, 1_233, 49_997, 49_998]);
    expect(rows.map((r) => r.id)).toEqual([0, 1_231, 1_233, 49_998]);
    expect(missing).toEqual([1_232, 49_997]);
  }, 300_000);

  it('--on-error skip sets every refused row of a batch aside at once: 100 bad rows of 1,000 cost one resend', async () => {
    await client.createTable(rowsTable('tenths') as Parameters<SluiceClient['createTable']>[0]);
    const file = join(dir.path, 'tenths.jsonl');
    const lines = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ id: i, name: `n${i}`, score: i % 10 === 7 ? 'x' : i }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    const proxy: HttpProxy = await startHttpProxy(served.server.url, () => 'forward');
    try {
      const run = await runCli(
        ['load', 'tenths', file, '--on-error', 'skip', '--batch-rows', '1000', '--no-progress'],
        { url: proxy.url, token: served.tokens.all },
      );
      expect(run.code).toBe(0);
      const posts = proxy.seen.filter((r) => r.method === 'POST' && r.path.endsWith('/rows'));
      expect(posts.map((r) => r.status)).toEqual([400, 200]);
    } finally {
      await proxy.close();
    }
    const rejects = (await readFile(`${file}.rejects.jsonl`, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejects.map((r) => r.line)).toEqual(Array.from({ length: 100 }, (_, i) => i * 10 + 8));
    expect(new Set(rejects.map((r) => r.code))).toEqual(new Set(['INVALID_ROWS']));
    expect((await client.countRows('tenths')).rows).toBe(900);
  });

  it('--on-error skip sets aside a line that is not JSON or CSV too, in its place among the refused rows', async () => {
    await client.createTable(rowsTable('mixed') as Parameters<SluiceClient['createTable']>[0]);
    const jsonl = join(dir.path, 'mixed.jsonl');
    await writeFile(
      jsonl,
      '{"id": 900, "name": "a"}\n{"id": 901, "name": \n{"id": 902, "name": "c", "score": "x"}\n{"id": 903, "name": "d"}\n',
    );
    const csv = join(dir.path, 'mixed.csv');
    await writeFile(csv, 'id,name,score\n910,a,0.5\n911,b,0.5,extra\n912,c,0.5\n');
    for (const [file, lines] of [
      [
        jsonl,
        [
          [2, 'MALFORMED'],
          [3, 'INVALID_ROWS'],
        ],
      ],
      [csv, [[3, 'MALFORMED']]],
    ] as const) {
      const rejects = `${file}.rejects.jsonl`;
      const run = await runCli(['load', 'mixed', file, '--on-error', 'skip', '--no-progress'], env());
      expect([file, run.code]).toEqual([file, 0]);
      expect(run.stderr).toContain(`rejected ${lines.length} row`);
      const written = (await readFile(rejects, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(written.map((r) => [r.line, r.code])).toEqual(lines.map(([line, code]) => [line, code]));
    }
    const { rows, missing } = await client.lookupMany('mixed', [900, 901, 902, 903, 910, 911, 912]);
    expect(rows.map((r) => r.id)).toEqual([900, 903, 910, 912]);
    expect(missing).toEqual([901, 902, 911]);
  });
});

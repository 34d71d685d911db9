/**
 * The `sluice` command against a real server process: a 100k-row CSV load killed halfway
 * and run again lands every row exactly once, with its progress on stderr; the table it
 * made scans back as the same CSV and as Arrow; stats name every shard. The kill is placed
 * by a proxy between the command and the server that passes the 51st batch on to the
 * server and keeps its answer back: that batch and the three sent beside it are acked but
 * not in the checkpoint when the command dies, the hardest place for a resume.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Bool,
  Field,
  Float64,
  Int64,
  RecordBatch,
  Schema,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.ts';
import { fromLanceArrow, lanceDb } from '../../shared/base/lance-module.ts';
import { runCli, spawnCli } from '../support/cli-process.ts';
import { type HttpProxy, startHttpProxy } from '../support/http-proxy.ts';
import { type ServedProcess, serveProcess, upsertedRows } from '../support/server-process.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const ROWS = 100_000;
const BATCH_ROWS = 1000;
/** The two tests that move 100k rows through a child process get this long on a busy machine. */
const BULK_TIMEOUT_MS = 300_000;
const HELD_BATCH = 50;
/** Batches in flight: while the held one waits, the three after it land and the window stops there. */
const CONCURRENCY = 4;

const definition = {
  name: 'loads',
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8' },
      { name: 'score', type: 'float64', nullable: true },
      { name: 'flag', type: 'bool', nullable: true },
    ],
  },
  primaryKey: ['id'],
  shards: 4,
  settings: { mergeAfterGenerations: 0, mergeAfterSeconds: 0 },
};

function csvOf(rows: number): string {
  const lines = ['id,name,score,flag'];
  for (let i = 0; i < rows; i++) {
    lines.push(`${i},name-${i},${i % 7 === 0 ? '' : i / 4},${i % 5 === 0 ? '' : String(i % 2 === 0)}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('sluice load, killed and resumed', () => {
  let served: ServedProcess;
  let dir: TempDir;
  let csvPath: string;
  let csv: string;
  const env = () => ({ url: served.server.url, token: served.tokens.all });

  beforeAll(async () => {
    served = await serveProcess('cli-load', { role: 'all' });
    dir = await createTempDir('cli-load');
    csvPath = join(dir.path, 'rows.csv');
    csv = csvOf(ROWS);
    await writeFile(csvPath, csv);
    const schemaPath = join(dir.path, 'schema.json');
    await writeFile(schemaPath, JSON.stringify(definition));
    const created = await runCli(['table', 'create', '--schema', schemaPath], env());
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout.toString()).name).toBe('loads');
  });

  /**
   * Loads the CSV into `table` through a proxy that holds the answer to batch 51, and kills
   * the command once that batch and the three beside it are acked and the checkpoint
   * records the 50 before them: a resume must not land those four again.
   */
  async function loadKilledAtHeldBatch(table: string): Promise<{ stderr: string }> {
    const before = await upsertedRows(served);
    let batches = 0;
    const proxy: HttpProxy = await startHttpProxy(served.server.url, (req) => {
      if (req.method !== 'POST' || !req.path.endsWith('/rows')) return 'forward';
      return batches++ === HELD_BATCH ? 'hold' : 'forward';
    });
    try {
      const args = ['--batch-rows', String(BATCH_ROWS), '--concurrency', String(CONCURRENCY)];
      const first = spawnCli(['load', table, csvPath, ...args], { url: proxy.url, token: served.tokens.all });
      const landed = () => proxy.seen.filter((r) => r.method === 'POST' && r.status === 200);
      await waitFor(() => landed().length === HELD_BATCH + CONCURRENCY, {
        message: 'the held batch and the ones beside it to be acked by the server',
        timeoutMs: 60_000,
      }).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${whatTheLoadMet(proxy, first.stderr())}`, {
          cause: err,
        });
      });
      // `seen` is in the order the server answered, so only the count of held answers is fixed.
      expect(landed().filter((r) => r.action === 'hold')).toHaveLength(1);
      await waitFor(() => first.stderr().includes(`${HELD_BATCH * BATCH_ROWS} rows |`), {
        message: 'the progress line of the last recorded batch',
      });
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe(null);
      const checkpoint = JSON.parse(await readFile(`${csvPath}.sluice-load.json`, 'utf8'));
      expect(checkpoint.batchesDone).toBe(HELD_BATCH);
      expect(checkpoint.rowsDone).toBe(HELD_BATCH * BATCH_ROWS);
      expect((await upsertedRows(served)) - before).toBe((HELD_BATCH + CONCURRENCY) * BATCH_ROWS);
      expect(landed().length).toBe(HELD_BATCH + CONCURRENCY);
      return { stderr: first.stderr() };
    } finally {
      await proxy.close();
    }
  }

  /** The answers the load got so far, its last words and the server's warnings: why it waits. */
  function whatTheLoadMet(proxy: HttpProxy, stderr: string): string {
    const answers: Record<string, number> = {};
    for (const r of proxy.seen)
      answers[`${r.method} ${r.status}`] = (answers[`${r.method} ${r.status}`] ?? 0) + 1;
    const warnings = served.server.lines.filter((line) => line.level >= 40).slice(-20);
    return [
      `answers: ${JSON.stringify(answers)}`,
      `load stderr (tail): ${stderr.slice(-1500)}`,
      `server warnings and errors (last ${warnings.length}):`,
      ...warnings.map((line) => JSON.stringify(line)),
    ].join('\n');
  }

  afterAll(async () => {
    await dir?.cleanup();
    expect(await served?.stop()).toBe(0);
  });

  it(
    'lands every row exactly once, showing rows/s, bytes and ETA while it runs',
    async () => {
      const first = await loadKilledAtHeldBatch('loads');
      const progress = first.stderr.split('\n').filter((l) => l.includes('rows/s'));
      expect(progress.length).toBeGreaterThan(0);
      // Every ETA the bar ever showed is a time or N/A (cli-progress's own printed "LLs", "NFs").
      for (const line of progress)
        expect([line, /ETA (\d+s|\d+m\d{2}s|\d+h\d{2}m|N\/A)$/.test(line)]).toEqual([line, true]);
      expect(progress.at(-1)).toMatch(
        /\d+% \| 50000 rows \| \d+ rows\/s \| [\d.]+ (B|KiB|MiB) of [\d.]+ MiB \| ETA (\d+[smh]|\d+m\d+s|N\/A)/,
      );

      const second = await runCli(['load', 'loads', csvPath, '--batch-rows', String(BATCH_ROWS)], env());
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(
        /loaded 50000 rows in 50 batches in [\d.]+ s \(4 already acked, resumed after batch 50\)/,
      );
      expect(second.stderr).toMatch(/100% \| 100000 rows \|/);
      expect(await upsertedRows(served)).toBe(ROWS);
      await expect(readFile(`${csvPath}.sluice-load.json`)).rejects.toThrow(/ENOENT/);

      const client = new SluiceClient(env());
      let count = 0;
      const ids = new Set<number>();
      for await (const row of client.scan('loads', { pageSize: 1000 })) {
        count++;
        ids.add(row.id as number);
      }
      expect(count).toBe(ROWS);
      expect(ids.size).toBe(ROWS);
      expect(await client.lookup('loads', 99_999)).toEqual({
        id: 99_999,
        name: 'name-99999',
        score: 24_999.75,
        flag: false,
      });
      expect(await client.lookup('loads', 35)).toEqual({ id: 35, name: 'name-35', score: null, flag: null });
    },
    BULK_TIMEOUT_MS,
  );

  it(
    'an append-only table: killed and resumed, every row lands once, in the base as LanceDB reads it',
    async () => {
      const { primaryKey: _, ...keyless } = definition;
      await new SluiceClient(env()).createTable({ ...keyless, name: 'stream' });
      const before = await upsertedRows(served);
      await loadKilledAtHeldBatch('stream');
      const second = await runCli(['load', 'stream', csvPath, '--batch-rows', String(BATCH_ROWS)], env());
      expect(second.code).toBe(0);
      // The four batches acked before the kill are sent again with their Idempotency-Keys and replayed.
      expect(second.stderr).toMatch(/\(4 already acked, resumed after batch 50\)/);
      expect((await upsertedRows(served)) - before).toBe(ROWS);
      const client = new SluiceClient(env());
      await waitFor(
        async () => {
          const s = (await client.describeTable('stream')).stats;
          return s.unsealedEntries === 0 && s.sealedGenerations === 0 && s.pendingRows === ROWS;
        },
        { message: 'every row of stream committed to L0', timeoutMs: 60_000 },
      );
      const merged = await runCli(['merge', 'stream', '--follow', '--interval', '100'], env());
      expect(merged.stderr).toMatch(/merged 100000 rows from \d+ generations; .*caught up/);
      const { stats } = await client.describeTable('stream');
      expect([stats.pendingRows, stats.baseRows]).toEqual([0, ROWS]);
      const db = await lanceDb().connect(`${served.storeDir}/tables/stream`);
      const base = await db.openTable('base');
      expect(await base.countRows()).toBe(ROWS);
      const ids = fromLanceArrow(await base.query().select(['id']).toArrow()).getChild('id')!;
      expect(new Set(Array.from(ids, Number)).size).toBe(ROWS);
      expect((await client.countRows('stream')).rows).toBe(ROWS);
      await expect(client.lookup('stream', 5)).rejects.toMatchObject({
        code: 'TABLE_HAS_NO_KEY',
        status: 404,
      });
      const range = await runCli(['scan', 'stream', '--from', '5'], env());
      expect(range.code).toBe(1);
      expect(range.stderr).toContain('TABLE_HAS_NO_KEY');

      const added = await runCli(['table', 'add-column', 'stream', 'note', 'utf8'], env());
      expect([added.code, added.stderr]).toEqual([0, '']);
      expect(JSON.parse(added.stdout.toString())).toMatchObject({ schemaVersion: 2 });
      const described = JSON.parse((await runCli(['table', 'describe', 'stream'], env())).stdout.toString());
      expect(described.schemaHistory).toEqual([
        {
          schemaVersion: 2,
          at: expect.any(String),
          change: { add: [{ name: 'note', type: 'utf8', nullable: true }] },
        },
      ]);
    },
    BULK_TIMEOUT_MS,
  );

  it(
    'scans the table back as the CSV it was loaded from, and as Arrow',
    async () => {
      const asCsv = await runCli(['scan', 'loads', '--format', 'csv'], env());
      expect(asCsv.code).toBe(0);
      const sorted = (text: string) => text.trimEnd().split('\n').slice(1).sort();
      const lines = asCsv.stdout.toString().split('\n');
      expect(lines[0]).toBe('id,name,score,flag');
      const scanned = sorted(asCsv.stdout.toString());
      const present = new Set(scanned);
      const missing = sorted(csv).filter((line) => !present.has(line));
      // Counts first: a 100k-line diff would hide which rows went missing.
      expect({ rows: scanned.length, missing: missing.length, firstMissing: missing[0] ?? null }).toEqual({
        rows: ROWS,
        missing: 0,
        firstMissing: null,
      });
      expect(scanned).toEqual(sorted(csv));

      const asArrow = await runCli(['scan', 'loads', '--format', 'arrow'], env());
      expect(asArrow.code).toBe(0);
      const table = tableFromIPC(asArrow.stdout);
      expect(table.numRows).toBe(ROWS);
      expect(table.schema.fields.map((f) => f.name)).toEqual(['id', 'name', 'score', 'flag']);
    },
    BULK_TIMEOUT_MS,
  );

  it('prints the stats of every shard', async () => {
    const stats = await runCli(['stats', 'loads'], env());
    expect(stats.code).toBe(0);
    const lines = stats.stdout.toString().trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^loads: 4 shards, base version \d+ \(\d+ rows\), pending \d+ generations, 0 poisoned$/,
    );
    expect(lines[1]).toMatch(/^shard\s+frontier\s+cursor/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['0', '1', '2', '3']);
  });

  it('loads JSON lines and Arrow files too', async () => {
    const schemaPath = join(dir.path, 'small.json');
    await writeFile(schemaPath, JSON.stringify(definition));
    expect((await runCli(['table', 'create', 'small', '--schema', schemaPath], env())).code).toBe(0);
    const jsonl = join(dir.path, 'rows.jsonl');
    const lines = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ id: i, name: `j${i}`, score: i, flag: true }),
    );
    await writeFile(jsonl, `${lines.join('\n')}\n`);
    const fromJsonl = await runCli(['load', 'small', jsonl, '--batch-rows', '100', '--no-progress'], env());
    expect(fromJsonl.stderr).toMatch(/^loaded 300 rows in 3 batches in [\d.]+ s \(0 already acked\)\n$/);

    const ids = Array.from({ length: 200 }, (_, i) => BigInt(1000 + i));
    const schema = new Schema([
      new Field('id', new Int64(), false),
      new Field('name', new Utf8(), true),
      new Field('score', new Float64(), true),
      new Field('flag', new Bool(), true),
    ]);
    const columns = new Table({
      id: vectorFromArray(ids, new Int64()),
      name: vectorFromArray(
        ids.map((id) => `a${id}`),
        new Utf8(),
      ),
      score: vectorFromArray(
        ids.map(() => 0.5),
        new Float64(),
      ),
      flag: vectorFromArray(
        ids.map(() => false),
        new Bool(),
      ),
    });
    const arrowPath = join(dir.path, 'rows.arrow');
    await writeFile(
      arrowPath,
      tableToIPC(
        new Table(
          schema,
          columns.batches.map((b) => new RecordBatch(schema, b.data)),
        ),
        'file',
      ),
    );
    const fromArrow = await runCli(
      ['load', 'small', arrowPath, '--batch-rows', '150', '--no-progress'],
      env(),
    );
    expect(fromArrow.stderr).toMatch(/^loaded 200 rows in 2 batches in [\d.]+ s \(0 already acked\)\n$/);

    const asJsonl = await runCli(['scan', 'small', '--format', 'jsonl'], env());
    const scanned = asJsonl.stdout
      .toString()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(scanned.length).toBe(500);
    expect(scanned[0]).toEqual({ id: 0, name: 'j0', score: 0, flag: true });
    expect(scanned.at(-1)).toEqual({ id: 1199, name: 'a1199', score: 0.5, flag: false });

    const ranged = await runCli(
      [
        'scan',
        'small',
        '--format',
        'csv',
        '--columns',
        'name,id',
        '--from',
        '10',
        '--to',
        '13',
        '--page-size',
        '2',
      ],
      env(),
    );
    expect(ranged.stdout.toString()).toBe('name,id\nj10,10\nj11,11\nj12,12\n');
    const unknown = await runCli(['scan', 'small', '--columns', 'id,nope'], env());
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.toString()).toContain('unknown column "nope"; the columns of small are');
  });

  it('asks for a merge, and lists dead letters', async () => {
    const merge = await runCli(['merge', 'loads'], env());
    expect(merge.code).toBe(0);
    expect(merge.stderr).toMatch(/^merge job \S+\n$/);
    const letters = await runCli(['dead-letters', 'list'], env());
    expect(letters.code).toBe(0);
    expect(letters.stdout.toString()).toBe('');
  });

  it('waits with --wait-merged until the load is in the base; merge and optimize --follow say what they did and what is left', async () => {
    const client = new SluiceClient(env());
    const csvOfTable = async (name: string, rows: number) => {
      const path = join(dir.path, `${name}.csv`);
      await writeFile(path, csvOf(rows));
      return path;
    };
    // Merged by the scheduler a second after each commit: --wait-merged waits for that.
    await client.createTable({ ...definition, name: 'merged', settings: { mergeAfterSeconds: 1 } });
    const waited = await runCli(
      ['load', 'merged', await csvOfTable('merged', 3000), '--batch-rows', '500', '--wait-merged'],
      env(),
    );
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(/in the base [\d.]+ s after the load ended\n$/);
    const { stats } = await client.describeTable('merged');
    expect([stats.pendingRows, stats.pendingGenerations, stats.baseRows]).toEqual([0, 0, 3000]);

    const optimized = await runCli(['optimize', 'merged', '--follow', '--interval', '100'], env());
    expect(optimized.code).toBe(0);
    expect(optimized.stderr).toMatch(/^optimize job \S+\n/);
    expect(optimized.stderr).toMatch(
      /optimized \(requested\) to Lance version \d+; caught up: nothing was pending when it ended\n$/,
    );

    // Merged only by hand: the merge takes every committed generation, and says the base caught up.
    await client.createTable({ ...definition, name: 'by-hand' });
    expect(
      (await runCli(['load', 'by-hand', await csvOfTable('by-hand', 2000), '--batch-rows', '500'], env()))
        .code,
    ).toBe(0);
    await waitFor(
      async () => {
        const s = (await client.describeTable('by-hand')).stats;
        return s.unsealedEntries === 0 && s.sealedGenerations === 0 && s.pendingRows === 2000;
      },
      { message: 'every row of by-hand committed to L0', timeoutMs: 30_000 },
    );
    const merged = await runCli(['merge', 'by-hand', '--follow', '--interval', '100'], env());
    expect(merged.code).toBe(0);
    expect(merged.stderr).toMatch(
      /merged 2000 rows from \d+ generations; .*caught up: nothing was pending when it ended\n$/,
    );
    // Nothing left: no progress bar of "0 of 1 rows", only what the job did.
    const again = await runCli(['merge', 'by-hand', '--follow', '--interval', '100'], env());
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('rows | ETA');
    expect(again.stderr).toMatch(
      /^merge job \S+\nmerged 0 rows from 0 generations; caught up: nothing was pending when it ended\n$/,
    );
  });

  it('a malformed JSONL or CSV line is one error line naming the file and its line, exit 1, no stack trace', async () => {
    const broken = join(dir.path, 'broken.jsonl');
    await writeFile(broken, '{"id": 1, "name": "a"}\n{"id": 2, "name": \n{"id": 3, "name": "c"}\n');
    const json = await runCli(['load', 'loads', broken, '--no-progress'], env());
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(new RegExp(`^sluice: ${broken}:2: not JSON: [^\n]+\n$`));

    const unclosed = join(dir.path, 'unclosed.csv');
    await writeFile(unclosed, 'id,name,score,flag\n1,a,0.5,true\n2,"b,1.5,false\n3,c,2.5,true\n');
    const csv = await runCli(['load', 'loads', unclosed, '--no-progress'], env());
    expect(csv.code).toBe(1);
    expect(csv.stderr).toMatch(new RegExp(`^sluice: ${unclosed}:\\d+: not CSV: [^\n]+\n$`));
    expect(`${json.stderr}${csv.stderr}`).not.toMatch(/^\s+at /m);

    const help = await runCli(['scan', '--help'], env());
    expect(help.stdout.toString().replace(/\s+/g, ' ')).toContain(
      'the rows not merged yet in primary-key order, then the base in its storage order',
    );
  });

  it('refuses a checkpoint of another file, and says what to do', async () => {
    const other = join(dir.path, 'other.csv');
    await writeFile(other, csvOf(10));
    const checkpoint = join(dir.path, 'shared-checkpoint.json');
    await writeFile(
      checkpoint,
      JSON.stringify({
        loadId: 'another',
        table: 'loads',
        file: csvPath,
        batchesDone: 3,
        rowsDone: 3,
        position: 9,
      }),
    );
    const refused = await runCli(
      ['load', 'loads', other, '--checkpoint', checkpoint, '--no-progress'],
      env(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is the checkpoint of another load');
    expect(refused.stderr).toContain('--fresh');
  });

  it('answers an unknown table with the API code and exit status 1', async () => {
    const missing = await runCli(['load', 'nope', csvPath, '--no-progress'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('sluice: TABLE_NOT_FOUND: table "nope" does not exist\n');
  });
});

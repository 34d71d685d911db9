/**
 * The `sluice` command line, on the typed client. Configured by SLUICE_URL and
 * SLUICE_TOKEN, or --url and --token. Failures print one line on stderr (the API's code
 * and message) and exit 1.
 */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { isSluiceApiError } from '../errors.ts';
import type { CreateTable } from '../types.ts';
import { type ConnectionOptions, connect, DEFAULT_URL } from './connection.ts';
import { load } from './load.ts';
import { followLaneJob, laneSummary } from './merge.ts';
import { type ScanChoice, type ScanFormat, scan } from './scan.ts';
import { type SearchChoice, type SearchFormat, search } from './search.ts';
import { FILE_FORMATS } from './sources.ts';
import { statsOnce, watchStats } from './stats.ts';
import { UsageError } from './usage-error.ts';
import { waitMerged } from './wait-merged.ts';

/** A file the command was told to read or write could not be: the system's message names it. */
function isFileError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}

const positiveInt = (max: number) => (text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidArgumentError(`an integer from 1 to ${max}`);
  }
  return value;
};

const columnList = (text: string) => {
  const names = text.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) throw new InvalidArgumentError('column names separated by commas');
  return names;
};

/** A key as the API reads `?key=`: JSON, or the text itself; an integer beyond 2^53 stays text so no digit is lost. */
const keyArgument = (text: string): unknown => {
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text))) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const program = new Command('sluice')
  .description('Load, read and operate Sluice tables')
  .addOption(new Option('--url <url>', `the API (default: ${DEFAULT_URL})`).env('SLUICE_URL'))
  .addOption(new Option('--token <token>', 'a bearer token').env('SLUICE_TOKEN'))
  .showHelpAfterError();

const client = () => connect(program.opts<ConnectionOptions>());
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

const table = program.command('table').description('create, list, describe and drop tables');
table
  .command('create')
  .description(
    'create a table from a JSON definition: {name, schema:{fields}, primaryKey, shards?, settings?}',
  )
  .requiredOption('--schema <file>', 'the definition, as POST /v1/tables takes it')
  .argument('[name]', 'the table name, instead of the one in the file')
  .action(async (name: string | undefined, options: { schema: string }) => {
    const definition = JSON.parse(await readFile(options.schema, 'utf8')) as CreateTable;
    print(await client().createTable(name ? { ...definition, name } : definition));
  });
table
  .command('list')
  .description('every table, one name a line')
  .action(async () => {
    for await (const t of client().listTables()) process.stdout.write(`${t.name}\n`);
  });
table
  .command('add-column')
  .description('add a nullable column; rows written before read it as null')
  .argument('<table>')
  .argument('<name>', 'the column name')
  .argument('<type>', 'a column type, as in a create: int64, utf8, "vector[float32, 3]", …')
  .action(async (name: string, column: string, type: string) => {
    print(await client().addColumns(name, { add: [{ name: column, type }] }));
  });
table
  .command('describe')
  .argument('<table>')
  .action(async (name: string) => print(await client().describeTable(name)));
table
  .command('drop')
  .argument('<table>')
  .action(async (name: string) => {
    await client().dropTable(name);
    process.stderr.write(`dropped ${name}\n`);
  });

program
  .command('load')
  .description(
    'load a .csv (with a header line), .jsonl/.ndjson, .json (an array of objects), .arrow or .parquet file, or - for standard input with --format; text and Arrow files may be gzipped (.gz). Killed, the same command resumes it (standard input cannot be resumed)',
  )
  .argument('<table>')
  .argument('<file>')
  .option('--batch-rows <n>', 'rows per request', positiveInt(100_000), 5000)
  .option('--concurrency <n>', 'batches in flight at once', positiveInt(64), 4)
  .option(
    '--checkpoint <file>',
    'where the load records its acked batches (default: <file>.sluice-load.json)',
  )
  .addOption(
    new Option('--format <format>', 'the file format, when its name does not say').choices([...FILE_FORMATS]),
  )
  .addOption(
    new Option(
      '--on-error <mode>',
      'a row the server refuses: stop the load there, or skip it into the rejects file and go on',
    )
      .choices(['stop', 'skip'])
      .default('stop'),
  )
  .option('--rejects <file>', 'where --on-error skip writes refused rows (default: <file>.rejects.jsonl)')
  .option('--no-progress', 'no progress bar')
  .option('--fresh', 'start over, replacing the checkpoint of another load', false)
  .option('--wait-merged', 'then wait until every row it loaded is in the base', false)
  .action(async (name: string, file: string, options) => {
    const started = performance.now();
    const c = client();
    const summary = await load(c, name, file, options);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const resumed = summary.resumedAt > 0 ? `, resumed after batch ${summary.resumedAt}` : '';
    process.stderr.write(
      `loaded ${summary.rows} rows in ${summary.batches} batch${summary.batches === 1 ? '' : 'es'} in ${seconds} s (${summary.replayed} already acked${resumed})\n`,
    );
    if (summary.rejectsFile) {
      process.stderr.write(
        `rejected ${summary.rejected} row${summary.rejected === 1 ? '' : 's'}, each with its place and reason in ${summary.rejectsFile}\n`,
      );
    }
    if (!options.waitMerged) return;
    const waited = await waitMerged(c, name);
    process.stderr.write(`in the base ${waited.toFixed(1)} s after the load ended\n`);
  });

program
  .command('scan')
  .description(
    'every row to stdout: the rows not merged yet in primary-key order, then the base in its storage order',
  )
  .argument('<table>')
  .addOption(
    new Option('--format <format>', 'output format').choices(['jsonl', 'csv', 'arrow']).default('jsonl'),
  )
  .option('--page-size <n>', 'rows per request', positiveInt(1000), 1000)
  .option('--columns <names>', 'only these columns, comma-separated, in that order', columnList)
  .option('--from <key>', 'from this key on (inclusive); JSON, or text for a string key', keyArgument)
  .option('--to <key>', 'up to this key (exclusive); JSON, or text for a string key', keyArgument)
  .action(async (name: string, options: { format: ScanFormat } & ScanChoice) => {
    const { format, ...choice } = options;
    await scan(client(), name, format, choice);
  });

program
  .command('search')
  .description(
    'the nearest neighbours of a vector, a full-text search or the rows a filter passes, over the base and every row not merged yet, best first',
  )
  .argument('<table>')
  .option('--vector <json>', 'the vector, a JSON array of numbers')
  .option('--vector-file <file>', 'a file holding the vector as a JSON array')
  .option('--text <words>', 'full-text search for these words')
  .option('--filter <sql>', 'a Lance SQL filter, e.g. "category = \'a\' AND score > 0.5"')
  .option('-k, --k <n>', 'rows to answer', positiveInt(1000), 10)
  .option('--columns <names>', 'only these columns, comma-separated, in that order', columnList)
  .option('--column <name>', 'the vector column, when the table has several')
  .option('--text-column <name>', 'the column to search by text, when several have an fts index')
  .addOption(new Option('--metric <metric>', 'the distance').choices(['l2', 'cosine', 'dot']))
  .addOption(
    new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']).default('table'),
  )
  .action(async (name: string, options: { format: SearchFormat } & SearchChoice) => {
    const { format, ...choice } = options;
    await search(client(), name, format, choice);
  });

program
  .command('stats')
  .description('the table and its shards: frontier, cursor, generations, pending, poison')
  .argument('<table>')
  .option('--watch', 'redraw until Ctrl-C', false)
  .option('--interval <seconds>', 'seconds between redraws', positiveInt(3600), 2)
  .action(async (name: string, options: { watch: boolean; interval: number }) => {
    if (!options.watch) return void process.stdout.write(await statsOnce(client(), name));
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    await watchStats(client(), name, options.interval * 1000, stop.signal);
  });

const deadLetters = program.command('dead-letters').description('jobs that no retry could make succeed');
deadLetters.command('list').action(async () => {
  for await (const letter of client().deadLetters()) {
    process.stdout.write(`${letter.id}\t${letter.target}\t${letter.error.code}\t${letter.failedAt}\n`);
  }
});
deadLetters
  .command('show')
  .argument('<id>')
  .action(async (id: string) => print(await client().deadLetter(id)));
deadLetters
  .command('retry')
  .argument('<id>')
  .action(async (id: string) => print(await client().retryDeadLetter(id)));

for (const [work, description] of [
  ['merge', 'merge the committed generations of a table into its base now'],
  [
    'optimize',
    "merge what is pending, then optimize the table's base now (compaction, index update, cleanup)",
  ],
] as const) {
  program
    .command(work)
    .description(description)
    .argument('<table>')
    .option(
      '--follow',
      'show the progress until the job ends, then what it did and what is still pending',
      false,
    )
    .option('--interval <ms>', 'milliseconds between status reads', positiveInt(60_000), 500)
    .action(async (name: string, options: { follow: boolean; interval: number }) => {
      const c = client();
      const { jobId } = await (work === 'merge' ? c.merge(name) : c.optimize(name));
      process.stderr.write(`${work} job ${jobId}\n`);
      if (!options.follow) return;
      const status = await followLaneJob(c, work, name, jobId, options.interval);
      process.stderr.write(`${laneSummary(work, status)}\n`);
      if (status.state === 'failed') process.exitCode = 1;
    });
}

try {
  await program.parseAsync();
} catch (err) {
  if (isSluiceApiError(err)) process.stderr.write(`sluice: ${err.code}: ${err.message}\n`);
  else if (err instanceof UsageError) process.stderr.write(`sluice: ${err.message}\n`);
  else if (isFileError(err)) process.stderr.write(`sluice: ${err.message}\n`);
  else throw err;
  process.exitCode = 1;
}

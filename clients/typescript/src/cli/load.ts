/**
 * `sluice load <table> <file>`: the file in batches, a few in flight at once, the acked
 * prefix recorded in the checkpoint. Killed at any point, the same command resumes after
 * the last recorded batch; a batch that was acked but not yet recorded is sent again with
 * its key, and the server answers its first ack without writing it twice. Standard input
 * (`-`) is loaded the same way, but cannot be resumed: nothing names it again.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { DEFAULT_BATCH_LIMITS } from '../batches.ts';
import type { SluiceClient } from '../client.ts';
import { AckWindow } from './ack-window.ts';
import {
  batchKey,
  type Checkpoint,
  loadIdOf,
  readCheckpoint,
  removeCheckpoint,
  writeCheckpoint,
} from './checkpoint.ts';
import { inputSize, STDIN } from './input.ts';
import { type LoadProgress, loadProgress } from './progress.ts';
import { type OnError, type SentBatch, sendBatch } from './refused-rows.ts';
import { RejectsFile } from './rejects.ts';
import { type FileFormat, formatOf, readSource, type SourceBatch } from './sources.ts';
import { UsageError } from './usage-error.ts';

export interface LoadOptions {
  batchRows: number;
  /** Batches in flight at once, none more than this many ahead of the first unacked one. */
  concurrency: number;
  checkpoint?: string;
  format?: FileFormat;
  progress: boolean;
  /** Start over, ignoring (and replacing) a checkpoint of another load. */
  fresh: boolean;
  onError: OnError;
  /** Where `skip` writes the rows it sets aside (default: <file>.rejects.jsonl). */
  rejects?: string;
}

export interface LoadSummary {
  rows: number;
  batches: number;
  /** Batches the server had acked before (sent again after a kill). */
  replayed: number;
  /** Batches skipped because the checkpoint had them. */
  resumedAt: number;
  /** Rows set aside by `--on-error skip`, over the whole load (resumed or not). */
  rejected: number;
  /** The rejects file, when rows were set aside. */
  rejectsFile: string | null;
}

export async function load(
  client: SluiceClient,
  table: string,
  file: string,
  options: LoadOptions,
): Promise<LoadSummary> {
  const format = options.format ?? formatOf(file);
  if (!format)
    throw new UsageError(
      `cannot tell the format of ${file}: name it .csv, .jsonl, .ndjson, .json, .arrow or .parquet (each also .gz but Parquet), or pass --format`,
    );
  const fromStdin = file === STDIN;
  const checkpointPath = fromStdin ? null : (options.checkpoint ?? `${file}.sluice-load.json`);
  const rejectsPath = options.rejects ?? `${fromStdin ? 'stdin' : file}.rejects.jsonl`;
  const [description, size] = await Promise.all([client.describeTable(table), inputSize(file)]);
  const loadId = fromStdin
    ? randomUUID().replaceAll('-', '')
    : await loadIdOf(file, table, options.batchRows);
  const previous = checkpointPath ? await readCheckpoint(checkpointPath) : null;
  if (previous && previous.loadId !== loadId && !options.fresh) {
    throw new UsageError(
      `${checkpointPath} is the checkpoint of another load (another file, table or --batch-rows); pass --fresh to start over`,
    );
  }
  const resumed = previous?.loadId === loadId ? previous : null;
  let state: Checkpoint = resumed ?? { loadId, table, file, batchesDone: 0, rowsDone: 0, position: 0 };
  const limits = { ...DEFAULT_BATCH_LIMITS, maxRows: options.batchRows };
  const source = readSource(file, format, description.schema.fields, limits, options.onError === 'skip');
  const rejects =
    options.onError === 'skip'
      ? await RejectsFile.open(rejectsPath, file, source.unit, state.rejectsBytes ?? 0)
      : null;
  const progress: LoadProgress | null =
    options.progress && size !== null ? loadProgress(size, state.position, state.rowsDone) : null;
  const summary: LoadSummary = {
    rows: 0,
    batches: 0,
    replayed: 0,
    resumedAt: state.batchesDone,
    rejected: state.rejected ?? 0,
    rejectsFile: null,
  };
  const target = { client, table, file, unit: source.unit, onError: options.onError };
  const window = new AckWindow(
    state.batchesDone,
    options.concurrency,
    (batch: SourceBatch) => sendBatch(target, batch, batchKey(loadId, batch.index)),
    async (batch, sent: SentBatch) => {
      const rejectsBytes = rejects ? await rejects.append(sent.rejects) : state.rejectsBytes;
      state = {
        ...state,
        batchesDone: batch.index + 1,
        rowsDone: state.rowsDone + sent.rows,
        position: batch.position,
        rejected: (state.rejected ?? 0) + sent.rejects.length,
        rejectsBytes,
      };
      if (checkpointPath) await writeCheckpoint(checkpointPath, state);
      summary.rows += sent.rows;
      summary.batches++;
      summary.rejected += sent.rejects.length;
      if (sent.replayed) summary.replayed++;
      progress?.update(batch.position, state.rowsDone);
    },
  );
  try {
    for await (const batch of source.batches) {
      if (batch.index >= state.batchesDone) await window.push(batch);
    }
    await window.drain();
    if (size !== null) progress?.update(size, state.rowsDone);
  } finally {
    progress?.stop();
    await rejects?.close();
  }
  if (checkpointPath) await removeCheckpoint(checkpointPath);
  if (summary.rejected > 0) summary.rejectsFile = rejectsPath;
  else if (rejects) await rm(rejectsPath, { force: true });
  return summary;
}

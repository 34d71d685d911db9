/**
 * `sluice load <table> <file>`: the file in batches, a few in flight at once, the acked
 * prefix recorded in the checkpoint. Killed at any point, the same command resumes after
 * the last recorded batch; a batch that was acked but not yet recorded is sent again with
 * its key, and the server answers its first ack without writing it twice.
 */
import { stat } from 'node:fs/promises';
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
import { type LoadProgress, loadProgress } from './progress.ts';
import { type FileFormat, formatOf, readBatches, type SourceBatch } from './sources.ts';
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
}

export interface LoadSummary {
  rows: number;
  batches: number;
  /** Batches the server had acked before (sent again after a kill). */
  replayed: number;
  /** Batches skipped because the checkpoint had them. */
  resumedAt: number;
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
      `cannot tell the format of ${file}: name it .csv, .jsonl or .arrow, or pass --format`,
    );
  const checkpointPath = options.checkpoint ?? `${file}.sluice-load.json`;
  const [description, { size }] = await Promise.all([client.describeTable(table), stat(file)]);
  const loadId = await loadIdOf(file, table, options.batchRows);
  const previous = await readCheckpoint(checkpointPath);
  if (previous && previous.loadId !== loadId && !options.fresh) {
    throw new UsageError(
      `${checkpointPath} is the checkpoint of another load (another file, table or --batch-rows); pass --fresh to start over`,
    );
  }
  const resumed = previous?.loadId === loadId ? previous : null;
  let state: Checkpoint = resumed ?? { loadId, table, file, batchesDone: 0, rowsDone: 0, position: 0 };
  const progress: LoadProgress | null = options.progress
    ? loadProgress(size, state.position, state.rowsDone)
    : null;
  const summary: LoadSummary = { rows: 0, batches: 0, replayed: 0, resumedAt: state.batchesDone };
  const limits = { ...DEFAULT_BATCH_LIMITS, maxRows: options.batchRows };
  const window = new AckWindow(
    state.batchesDone,
    options.concurrency,
    (batch: SourceBatch) => client.writeBatch(table, batch, batchKey(loadId, batch.index)),
    async (batch, { replayed }) => {
      state = {
        ...state,
        batchesDone: batch.index + 1,
        rowsDone: state.rowsDone + batch.rows,
        position: batch.position,
      };
      await writeCheckpoint(checkpointPath, state);
      summary.rows += batch.rows;
      summary.batches++;
      if (replayed) summary.replayed++;
      progress?.update(batch.position, state.rowsDone);
    },
  );
  try {
    for await (const batch of readBatches(file, format, description.schema.fields, limits)) {
      if (batch.index >= state.batchesDone) await window.push(batch);
    }
    await window.drain();
    progress?.update(size, state.rowsDone);
  } finally {
    progress?.stop();
  }
  await removeCheckpoint(checkpointPath);
  return summary;
}

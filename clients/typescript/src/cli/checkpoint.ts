/**
 * The checkpoint of a load: which batches of which file the server has acked. It names the
 * load by a hash of the file's bytes, the table and the batch size, so a resumed load
 * cuts the same batches and sends each with the same Idempotency-Key, and a changed file is
 * never resumed as if it were the old one. Written by rename, so a kill leaves the old or
 * the new checkpoint, never half of one.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';

export interface Checkpoint {
  loadId: string;
  table: string;
  file: string;
  /** Batches 0 … batchesDone-1 are acked. */
  batchesDone: number;
  rowsDone: number;
  position: number;
  /** Rows of batches 0 … batchesDone-1 set aside as rejects (`--on-error skip`). */
  rejected?: number;
  /** Length of the rejects file once those batches' rejects were in it. */
  rejectsBytes?: number;
}

/** Names how a file is cut into batches: a load cut another way is another load, never resumed as this one. */
const CUT = 'cut-2';

export async function loadIdOf(path: string, table: string, batchRows: number): Promise<string> {
  const hash = createHash('sha256').update(`${table}\n${batchRows}\n${CUT}\n`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 32);
}

export function batchKey(loadId: string, index: number): string {
  return `sluice-load-${loadId}-${index}`;
}

export async function readCheckpoint(path: string): Promise<Checkpoint | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return JSON.parse(text) as Checkpoint;
}

export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const temp = `${path}.tmp`;
  await writeFile(temp, `${JSON.stringify(checkpoint)}\n`);
  await rename(temp, path);
}

export function removeCheckpoint(path: string): Promise<void> {
  return rm(path, { force: true });
}

/**
 * The bytes of a load's input: a file, or standard input for `-`, gunzipped when the name
 * ends in `.gz`. `consumed()` counts the bytes read from the file itself (compressed, when
 * it is), which is what the progress bar measures against the file's size.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { UsageError } from './usage-error.ts';

export const STDIN = '-';

export interface Input {
  stream: Readable;
  consumed(): number;
}

export function isGzip(path: string): boolean {
  return extname(path).toLowerCase() === '.gz';
}

/** The name without `.gz`, whose extension then says the format. */
export function innerName(path: string): string {
  return isGzip(path) ? path.slice(0, -3) : path;
}

/** The input's size in bytes, or null for standard input. */
export async function inputSize(path: string): Promise<number | null> {
  return path === STDIN ? null : (await stat(path)).size;
}

export function openInput(path: string): Input {
  const raw: Readable = path === STDIN ? process.stdin : createReadStream(path);
  let consumed = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      consumed += chunk.length;
      done(null, chunk);
    },
  });
  const stream = raw.pipe(counted);
  raw.on('error', (err) => stream.destroy(new UsageError(`${path}: ${err.message}`)));
  if (!isGzip(path)) return { stream, consumed: () => consumed };
  const gunzip = createGunzip();
  const gunzipped = stream.pipe(gunzip).pipe(new PassThrough());
  stream.on('error', (err) => gunzipped.destroy(err));
  gunzip.on('error', (err) => gunzipped.destroy(new UsageError(`${path}: not gzip: ${err.message}`)));
  return { stream: gunzipped, consumed: () => consumed };
}

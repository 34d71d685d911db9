/**
 * Rows the server refused, set aside by `sluice load --on-error skip`: one JSON line each in
 * the rejects file, naming the input, the row's place in it (places.ts), the API's code and
 * reason, and the row's values as sent. A batch's rejects are appended when the batch is
 * recorded, in batch order, and the checkpoint keeps the file's length: a resumed load cuts
 * the file back to it, so a batch sent again writes its rejects once.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { PlaceUnit } from './places.ts';

export interface Reject {
  place: number;
  code: string;
  reason: string;
  values: unknown;
}

/** Values read from Arrow, in the forms writes take: int64 as decimal strings, binary as base64. */
const replacer = (_key: string, value: unknown) =>
  typeof value === 'bigint'
    ? value.toString()
    : value instanceof Uint8Array
      ? Buffer.from(value).toString('base64')
      : value;

export class RejectsFile {
  private constructor(
    private readonly handle: FileHandle,
    private readonly file: string,
    private readonly unit: PlaceUnit,
    private bytes: number,
  ) {}

  /** Opens `path`, cut back to `keepBytes` (what the checkpoint recorded; 0 for a new load). */
  static async open(path: string, input: string, unit: PlaceUnit, keepBytes: number): Promise<RejectsFile> {
    const handle = await open(path, 'a+');
    try {
      const size = (await handle.stat()).size;
      const keep = Math.min(keepBytes, size);
      await handle.truncate(keep);
      return new RejectsFile(handle, input, unit, keep);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Appends `rejects` durably; answers the file's length after them. */
  async append(rejects: readonly Reject[]): Promise<number> {
    if (rejects.length === 0) return this.bytes;
    const text = rejects
      .map(({ place, code, reason, values }) =>
        JSON.stringify({ file: this.file, [this.unit]: place, code, reason, values }, replacer),
      )
      .join('\n');
    const { bytesWritten } = await this.handle.write(`${text}\n`);
    await this.handle.datasync();
    this.bytes += bytesWritten;
    return this.bytes;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

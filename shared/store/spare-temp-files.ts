/**
 * Empty temp files made ahead of the writes that will fill them (docs/design.md, "Object
 * layout"). Creating a file allocates an inode, which on some disks costs as much as the
 * write and fsync that follow; opening one that exists costs a few microseconds. So the
 * file store creates the next temp file from the thread pool while the current write runs,
 * and the write's own turn on the event loop only opens it.
 */
import { randomUUID } from 'node:crypto';
import { openSync, unlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from './errno.ts';

/** A temp file open for writing: its path under `.tmp/` and its descriptor. */
export interface OpenTemp {
  path: string;
  fd: number;
}

/**
 * Files kept ready. Made one at a time, so that they never take more than one of the thread
 * pool's threads from the fsyncs that acks wait on; more writes at once than this create
 * their own files in place.
 */
const SPARES = 4;
const TEMP_MODE = 0o644;

interface Spare {
  path: string;
  madeAt: number;
}

export class SpareTempFiles {
  private readonly spares: Spare[] = [];
  private making: Promise<void> | null = null;
  private closed = false;

  /**
   * `sweptAfterMs`: the age at which a store opening on `dir` removes a temp file as a
   * crash's leftover. A spare is used only while it is well short of that age.
   */
  constructor(
    private readonly dir: string,
    private readonly sweptAfterMs: number,
  ) {}

  /** A fresh empty temp file, open for writing; the caller removes it when done. */
  take(): OpenTemp {
    const freshAfter = Date.now() - this.sweptAfterMs / 2;
    for (let spare = this.spares.shift(); spare !== undefined; spare = this.spares.shift()) {
      if (spare.madeAt < freshAfter) {
        removeTempFile(spare.path);
        continue;
      }
      // Gone all the same: swept by a store with a shorter `tempMaxAgeMs`, or the clock stepped.
      const fd = openSpare(spare.path);
      if (fd !== null) {
        this.refillSoon();
        return { path: spare.path, fd };
      }
    }
    this.refillSoon();
    const path = this.newPath();
    return { path, fd: openSync(path, 'wx', TEMP_MODE) };
  }

  /** Removes the files not taken; later takes create their own. */
  async close(): Promise<void> {
    this.closed = true;
    await this.making;
    for (const { path } of this.spares.splice(0)) removeTempFile(path);
  }

  /**
   * After the current turn of the event loop: dispatching a file's creation costs the event
   * loop tens of microseconds, which the taker's write and fsync, started in this turn,
   * would otherwise wait for.
   */
  private refillSoon(): void {
    setImmediate(() => this.refill());
  }

  private refill(): void {
    if (this.closed || this.making || this.spares.length >= SPARES) return;
    const path = this.newPath();
    this.making = writeFile(path, new Uint8Array(0), { flag: 'wx', mode: TEMP_MODE }).then(
      () => {
        this.making = null;
        if (this.closed) removeTempFile(path);
        else this.spares.push({ path, madeAt: Date.now() });
        this.refill();
      },
      // Left for the next take to create in place, where the same error reaches its writer.
      () => {
        this.making = null;
      },
    );
  }

  private newPath(): string {
    return join(this.dir, `${randomUUID()}.tmp`);
  }
}

/** Opens a spare, or null if it is gone; a spare that cannot be opened is removed. */
function openSpare(path: string): number | null {
  try {
    return openSync(path, 'r+');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null;
    removeTempFile(path);
    throw err;
  }
}

/** Removes a temp file without failing its caller. */
export function removeTempFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or left for the sweep of old temp files when a store next opens.
  }
}

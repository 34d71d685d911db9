import { closeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpareTempFiles } from '../../../shared/store/spare-temp-files.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, writeFile: vi.fn(actual.writeFile) };
});

describe('spare temp files', () => {
  let dir: TempDir;
  let spares: SpareTempFiles;

  beforeEach(async () => {
    dir = await createTempDir('spare-files');
    spares = new SpareTempFiles(dir.path, 60_000);
    vi.mocked(writeFile).mockClear();
  });
  afterEach(async () => {
    await spares.close();
    await dir.cleanup();
  });

  it("start the next spare after the taker's turn, so its write and fsync are dispatched first", async () => {
    const taken = spares.take();
    closeSync(taken.fd);
    expect(writeFile).not.toHaveBeenCalled();
    await nextTurn();
    expect(writeFile).toHaveBeenCalledTimes(1);
  });
});

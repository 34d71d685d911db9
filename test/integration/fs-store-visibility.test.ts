import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsStore } from '../../shared/store/fs-store.ts';
import { walKey, walPrefix } from '../../shared/table/paths.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

async function fsync(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

describe('file store (suspected: an entry is visible before the directory fsync)', () => {
  let dir: TempDir;

  afterEach(async () => {
    await dir.cleanup();
  });

  it('a list that returns an entry whose writer has not yet fsynced the directory fsyncs it first', async () => {
    dir = await createTempDir('fs-visibility');
    const walDir = join(dir.path, 'tables', 't', 'shards', '0', 'wal');
    const events: string[] = [];
    let releaseWriter!: () => void;
    const writerHeld = new Promise<void>((resolve) => {
      releaseWriter = resolve;
    });
    let writerArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      writerArrived = resolve;
    });
    let writerSyncs = 0;
    const store = new FsStore(dir.path, {
      syncDirectory: async (path) => {
        if (path === walDir && writerSyncs++ === 0) {
          writerArrived();
          await writerHeld;
          events.push('writer fsync');
        } else if (path === walDir) {
          events.push('list fsync');
        }
        await fsync(path);
      },
    });

    const key = walKey('t', 0, 1);
    const put = store.putIfAbsent(key, new Uint8Array([1, 2, 3]));
    await arrived;
    for await (const page of store.list(walPrefix('t', 0))) {
      for (const meta of page) events.push(`listed ${meta.key}`);
    }
    releaseWriter();
    await put;

    expect(events).toEqual(['list fsync', `listed ${key}`, 'writer fsync']);
  });
});

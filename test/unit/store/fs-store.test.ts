import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultyStore } from '../../../shared/store/faulty-store.ts';
import { FsStore } from '../../../shared/store/fs-store.ts';
import { RESERVED_SEGMENT } from '../../../shared/store/object-key.ts';
import { createTempDir, type TempDir } from '../../support/temp-dir.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);

async function keys(store: FsStore | FaultyStore, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const page of store.list(prefix)) found.push(...page.map((m) => m.key));
  return found;
}

describe('file store staging: bytes made durable before their key is known', () => {
  let dir: TempDir;
  let store: FsStore;

  beforeEach(async () => {
    dir = await createTempDir('stage');
    store = new FsStore(dir.path);
  });
  afterEach(() => dir.cleanup());

  it('a staged object is invisible until published, then reads back whole', async () => {
    const staged = await store.stage(bytes('entry'));
    expect(await keys(store, 'wal/')).toEqual([]);
    const meta = await staged.putIfAbsent('wal/1');
    expect(meta.size).toBe(5);
    expect(text((await store.get('wal/1'))?.body)).toBe('entry');
    await staged.discard();
    expect(text((await store.get('wal/1'))?.body)).toBe('entry');
    expect(await readdir(join(dir.path, RESERVED_SEGMENT))).toEqual([]);
  });

  it('publishing to a taken key is PRECONDITION_FAILED and leaves the object there as it was', async () => {
    await store.putIfAbsent('wal/1', bytes('first'));
    const staged = await store.stage(bytes('second'));
    await expect(staged.putIfAbsent('wal/1')).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await staged.putIfAbsent('wal/2');
    await staged.discard();
    expect(text((await store.get('wal/1'))?.body)).toBe('first');
    expect(text((await store.get('wal/2'))?.body)).toBe('second');
  });

  it('a publish whose signal has already fired never lands', async () => {
    const staged = await store.stage(bytes('late'));
    await expect(staged.putIfAbsent('wal/1', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await staged.discard();
    expect(await store.get('wal/1')).toBeNull();
  });

  it('through the fault-injecting store the publish is a put-if-absent: counted, and its faults strike', async () => {
    const faulty = new FaultyStore(store);
    faulty.inject({ op: 'putIfAbsent', fault: 'fail', times: 1 });
    const staged = await faulty.stage!(bytes('entry'));
    await expect(staged.putIfAbsent('wal/1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await faulty.get('wal/1')).toBeNull();
    await staged.putIfAbsent('wal/1');
    await staged.discard();
    expect(faulty.calls.putIfAbsent).toBe(2);
    expect(await keys(faulty, 'wal/')).toEqual(['wal/1']);
  });
});

/**
 * The requests between an ack and its L0 commit that go side by side (docs/design.md, "Seal"
 * and "Flush"): each test holds one request at the door and shows the next one is sent
 * while it is held. Counted, never timed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generationKey, shardManifestPrefix, walPrefix } from '../../shared/table/paths.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, readAll, writeRows } from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';

const TABLE = 'overlap';
const MANIFEST = new RegExp(`^${shardManifestPrefix(TABLE, 0)}`);
const WAL = new RegExp(`^${walPrefix(TABLE, 0)}`);

describe('seal and flush requests side by side', () => {
  let h: Harness;
  let gated: GatedStore;

  afterEach(() => h.close());

  /** A second process on a gated store that has sealed and flushed generation 1 itself. */
  async function open() {
    h = await createHarness();
    await h.createTable(eventsTable(TABLE));
    gated = new GatedStore(h.store);
    const worker = h.otherProcess(gated).sluice;
    await writeRows(h.sluice, TABLE, eventRows(1, 10));
    await worker.shards.seal(TABLE, 0);
    await worker.shards.flush(TABLE, 0);
    await writeRows(h.sluice, TABLE, eventRows(11, 20));
    return worker;
  }

  it('a seal lists the WAL while its manifest read is under way, and commits on that read', async () => {
    const worker = await open();
    const lists = h.store.calls.list;
    const gets = h.store.calls.get;
    const read = gated.hold('get', MANIFEST);
    const sealing = worker.shards.seal(TABLE, 0);
    await read.reached;
    await waitFor(() => h.store.calls.list > lists, { message: 'the listing sent while the read is held' });
    read.release();
    expect((await sealing).sealed.map((g) => [g.generation, g.walFrom, g.walTo])).toEqual([[2, 2, 2]]);
    // One probe of the manifest, the held one: the commit decided on it without reading again.
    expect(h.store.calls.get - gets).toBe(1);
  });

  it("a flush reads the WAL range of the generation its process saw sealed while the manifest's read is under way", async () => {
    const worker = await open();
    await worker.shards.seal(TABLE, 0);
    const read = gated.hold('get', MANIFEST);
    const wal = gated.hold('get', WAL);
    const flushing = worker.shards.flush(TABLE, 0);
    let walReadSent = false;
    void wal.reached.then(() => {
      walReadSent = true;
    });
    await read.reached;
    await waitFor(() => walReadSent, { message: 'the range read while the manifest read is held' });
    read.release();
    wal.release();
    expect(await flushing).toEqual([2]);
    expect(await readAll(h.sluice, TABLE)).toEqual(eventRows(1, 20));
  });

  it("a flush's commit reads the manifest while the L0 file's put is under way", async () => {
    const worker = await open();
    await worker.shards.seal(TABLE, 0);
    const firstRead = gated.hold('get', MANIFEST);
    const put = gated.hold('put', new RegExp(`^${generationKey(TABLE, 0, 2)}$`));
    const flushing = worker.shards.flush(TABLE, 0);
    await firstRead.reached;
    const commitRead = gated.hold('get', MANIFEST);
    let commitReadSent = false;
    void commitRead.reached.then(() => {
      commitReadSent = true;
    });
    firstRead.release();
    await put.reached;
    await waitFor(() => commitReadSent, { message: 'the manifest read while the put is held' });
    commitRead.release();
    put.release();
    expect(await flushing).toEqual([2]);
  });

  it('a guess that another process flushed meanwhile is dropped: the flush commits nothing twice', async () => {
    const worker = await open();
    await worker.shards.seal(TABLE, 0);
    // The worker's last version seals generation 2; this process flushes it first.
    expect(await h.sluice.shards.flush(TABLE, 0)).toEqual([2]);
    expect(await worker.shards.flush(TABLE, 0)).toEqual([]);
    const manifest = await h.parts.manifests.read(TABLE, 0);
    expect(manifest.committed.map((g) => g.generation)).toEqual([1, 2]);
    expect(await readAll(h.sluice, TABLE)).toEqual(eventRows(1, 20));
  });
});

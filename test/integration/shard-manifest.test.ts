import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSluiceError } from '../../shared/errors.ts';
import { commitGeneration, sealGenerations } from '../../shared/lsm/manifest-transitions.ts';
import { ShardManifestStore } from '../../shared/lsm/shard-manifest.ts';
import { FaultyStore } from '../../shared/store/faulty-store.ts';
import { artifact, sealed } from '../support/generations.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const HINTS = { maxHintAgeMs: 60_000 };

describe('shard manifest', () => {
  let dir: TempDir;
  let store: FaultyStore;

  beforeEach(async () => {
    dir = await createTempDir('manifest');
    store = new FaultyStore(dir.fsStore());
  });
  afterEach(() => dir.cleanup());

  async function sealThree(manifests: ShardManifestStore) {
    await manifests.update('t', 0, (m) =>
      sealGenerations(m, [sealed(1, 1, 2), sealed(2, 3, 4), sealed(3, 5, 5)]),
    );
  }

  it('I3: refuses to commit a generation that is not the current one', async () => {
    const manifests = new ShardManifestStore(store, HINTS);
    await sealThree(manifests);
    const attempt = manifests.update('t', 0, (m) => commitGeneration(m, 2, artifact(2)));
    await expect(attempt).rejects.toMatchObject({ code: 'GENERATION_GAP', retryable: false });
    const latest = await manifests.read('t', 0);
    expect(latest.committed).toEqual([]);
    expect(latest.walCursor).toBe(0);
  });

  it('I3/I4: commits generations 1, 2, 3 in order, moving the cursor to each walTo', async () => {
    const manifests = new ShardManifestStore(store, HINTS);
    await sealThree(manifests);
    for (const g of [1, 2, 3]) {
      const { manifest } = await manifests.update('t', 0, (m) => commitGeneration(m, g, artifact(g)));
      expect(manifest.currentGeneration).toBe(g + 1);
    }
    const latest = await manifests.read('t', 0);
    expect(latest.committed.map((c) => c.generation)).toEqual([1, 2, 3]);
    expect(latest.walCursor).toBe(5);
    expect(latest.sealed).toEqual([]);
  });

  it('two racing commits: one wins the version, the other re-reads and finds nothing left to do', async () => {
    const a = new ShardManifestStore(store, HINTS);
    const b = new ShardManifestStore(store, HINTS);
    await sealThree(a);
    await b.read('t', 0);
    const decisions = { a: 0, b: 0 };
    const [ra, rb] = await Promise.all([
      a.update('t', 0, (m) => {
        decisions.a++;
        return commitGeneration(m, 1, artifact(1));
      }),
      b.update('t', 0, (m) => {
        decisions.b++;
        return commitGeneration(m, 1, artifact(1));
      }),
    ]);
    expect([ra.changed, rb.changed].sort()).toEqual([false, true]);
    expect(decisions.a + decisions.b).toBe(3);
    const latest = await a.read('t', 0);
    expect(latest.committed.map((c) => c.generation)).toEqual([1]);
  });

  it('I13: a commit whose put landed but whose answer was lost is settled as a success', async () => {
    const manifests = new ShardManifestStore(store, HINTS);
    await sealThree(manifests);
    const fault = store.inject({ op: 'putIfAbsent', key: '**/_manifest/*', fault: 'lostAck', times: 1 });
    const { manifest, changed } = await manifests.update('t', 0, (m) => commitGeneration(m, 1, artifact(1)));
    expect(fault.hits).toBe(1);
    expect(changed).toBe(true);
    expect(manifest.committed.map((c) => c.generation)).toEqual([1]);
    const fresh = await new ShardManifestStore(store, HINTS).read('t', 0);
    expect(fresh.version).toBe(manifest.version);
    expect(fresh.commitId).toBe(manifest.commitId);
  });

  it('a fresh reader finds the latest version without a hint, and a stale one probes forward', async () => {
    const writer = new ShardManifestStore(store, HINTS);
    const reader = new ShardManifestStore(store, HINTS);
    await sealThree(writer);
    expect((await reader.read('t', 0)).version).toBe(1);
    await writer.update('t', 0, (m) => commitGeneration(m, 1, artifact(1)));
    await writer.update('t', 0, (m) => commitGeneration(m, 2, artifact(2)));
    const listsBefore = store.calls.list;
    expect((await reader.read('t', 0)).version).toBe(3);
    expect(store.calls.list).toBe(listsBefore);
  });

  it('a failed commit that did not land is reported, not hidden', async () => {
    const manifests = new ShardManifestStore(store, HINTS);
    await sealThree(manifests);
    store.inject({ op: 'putIfAbsent', key: '**/_manifest/*', fault: 'fail', times: 1 });
    const error = await manifests.update('t', 0, (m) => commitGeneration(m, 1, artifact(1))).catch((e) => e);
    expect(isSluiceError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((await manifests.read('t', 0)).committed).toEqual([]);
  });
});

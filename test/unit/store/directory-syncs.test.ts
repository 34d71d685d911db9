/**
 * Group fsync of a directory: a caller is answered only by an fsync that began after its
 * call (I1: the entry it made before calling is in it), and callers that wait at once share
 * one fsync instead of one each.
 */
import { describe, expect, it } from 'vitest';
import { DirectorySyncs } from '../../../shared/store/directory-syncs.ts';

/** An fsync double that records when each fsync began and lets the test end it. */
function heldSyncs() {
  const started: { dir: string; at: number; end: (err?: Error) => void }[] = [];
  let clock = 0;
  const syncs = new DirectorySyncs(
    (dir) =>
      new Promise<void>((resolve, reject) => {
        started.push({ dir, at: clock, end: (err) => (err ? reject(err) : resolve()) });
      }),
  );
  return { syncs, started, tick: () => ++clock };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('DirectorySyncs', () => {
  it('starts an fsync at once for a lone caller', async () => {
    const { syncs, started } = heldSyncs();
    const done = syncs.sync('/a');
    expect(started.map((s) => s.dir)).toEqual(['/a']);
    started[0]!.end();
    await expect(done).resolves.toBeUndefined();
  });

  it('I1: answers callers that arrive during an fsync with one fsync that begins after it ends', async () => {
    const { syncs, started, tick } = heldSyncs();
    const answered: string[] = [];
    const first = syncs.sync('/a').then(() => answered.push('first'));
    tick();
    const later = [1, 2, 3].map((i) => syncs.sync('/a').then(() => answered.push(`later ${i}`)));
    await turn();
    expect(started).toHaveLength(1);

    started[0]!.end();
    await first;
    await turn();
    expect(started).toHaveLength(2);
    expect(started[1]!.at).toBeGreaterThanOrEqual(1);
    expect(answered).toEqual(['first']);

    started[1]!.end();
    await Promise.all(later);
    expect(answered).toEqual(['first', 'later 1', 'later 2', 'later 3']);
    expect(started).toHaveLength(2);
  });

  it('keeps directories apart', async () => {
    const { syncs, started } = heldSyncs();
    const both = [syncs.sync('/a'), syncs.sync('/b')];
    expect(started.map((s) => s.dir)).toEqual(['/a', '/b']);
    for (const s of started) s.end();
    await Promise.all(both);
  });

  it('fails the callers of a failed fsync, and the waiting ones get an fsync of their own', async () => {
    const { syncs, started } = heldSyncs();
    const first = syncs.sync('/a');
    const waiting = syncs.sync('/a');
    started[0]!.end(new Error('EIO'));
    await expect(first).rejects.toThrow('EIO');
    await turn();
    expect(started).toHaveLength(2);
    started[1]!.end();
    await expect(waiting).resolves.toBeUndefined();
  });
});

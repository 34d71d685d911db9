import { describe, expect, it } from 'vitest';
import {
  advanceSealed,
  commitGeneration,
  isCommitted,
  poisonShard,
  pruneMerged,
  reopenShard,
  sealGenerations,
} from '../../../shared/lsm/manifest-transitions.ts';
import {
  committedAbove,
  emptyShardManifest,
  listsAllAbove,
  pendingGenerations,
  type ShardManifest,
} from '../../../shared/lsm/shard-manifest.ts';
import type { PoisonRecord } from '../../../shared/shard-poison.ts';
import { artifact, sealed } from '../../support/generations.ts';

const poison = (generation: number | null): PoisonRecord => ({
  code: 'DATA_CORRUPT',
  generation,
  cause: 'bad bytes',
  at: '2026-01-01T00:00:00.000Z',
});

function applied(manifest: ShardManifest, change: ShardManifest | null): ShardManifest {
  expect(change).not.toBeNull();
  return change ?? manifest;
}

/** Generations 1–3 sealed over WAL 1–5; 1 and 2 committed. */
function twoCommitted(): ShardManifest {
  let m = applied(
    emptyShardManifest('t', 0),
    sealGenerations(emptyShardManifest('t', 0), [sealed(1, 1, 2), sealed(2, 3, 4), sealed(3, 5, 5)]),
  );
  m = applied(m, commitGeneration(m, 1, artifact(1)));
  return applied(m, commitGeneration(m, 2, artifact(2)));
}

describe('shard manifest transitions', () => {
  it('a seal continues the WAL exactly where the last one ended, or changes nothing', () => {
    const m = applied(
      emptyShardManifest('t', 0),
      sealGenerations(emptyShardManifest('t', 0), [sealed(1, 1, 3)]),
    );
    expect(m).toMatchObject({ sealedThrough: 3, nextGeneration: 2, walCursor: 0 });
    expect(sealGenerations(m, [sealed(2, 5, 6)])).toBeNull();
    expect(sealGenerations(m, [sealed(3, 4, 6)])).toBeNull();
    expect(sealGenerations(m, [])).toBeNull();
  });

  it('I3/I4: a commit takes the lowest sealed generation and moves the cursor to its last entry', () => {
    const m = twoCommitted();
    expect(m).toMatchObject({ currentGeneration: 3, walCursor: 4 });
    expect(m.sealed.map((g) => g.generation)).toEqual([3]);
    expect(m.committed.map((g) => g.generation)).toEqual([1, 2]);
    expect(() => commitGeneration(m, 4, artifact(4))).toThrow(
      expect.objectContaining({ code: 'GENERATION_GAP' }),
    );
  });

  it('I11/I13: committing a committed generation again changes nothing', () => {
    const m = twoCommitted();
    expect(isCommitted(m, 2)).toBe(true);
    expect(isCommitted(m, 3)).toBe(false);
    expect(commitGeneration(m, 1, artifact(1))).toBeNull();
  });

  it('committed above the watermark: what the base does not hold yet; pending adds the sealed ones', () => {
    const m = twoCommitted();
    expect(committedAbove(m, 0).map((g) => g.generation)).toEqual([1, 2]);
    expect(committedAbove(m, 1).map((g) => g.generation)).toEqual([2]);
    expect(committedAbove(m, 2)).toEqual([]);
    expect([0, 1, 2].map((watermark) => pendingGenerations(m, watermark))).toEqual([3, 2, 1]);
  });

  it('pruning drops committed generations at or below the watermark, and waits while poisoned', () => {
    const m = twoCommitted();
    expect(applied(m, pruneMerged(m, 1)).committed.map((g) => g.generation)).toEqual([2]);
    expect(pruneMerged(m, 0)).toBeNull();
    expect(pruneMerged(applied(m, poisonShard(m, poison(3))), 2)).toBeNull();
  });

  it('a manifest pruned past a watermark no longer lists every generation above it', () => {
    const m = twoCommitted();
    expect([0, 1, 2, 3].map((w) => listsAllAbove(m, w))).toEqual([true, true, true, true]);
    const pruned = applied(m, pruneMerged(m, 1));
    expect([0, 1, 2].map((w) => listsAllAbove(pruned, w))).toEqual([false, true, true]);
    expect(listsAllAbove(emptyShardManifest('t', 0), 0)).toBe(true);
  });

  it('I7: the first poison wins and blocks seals and commits; I8: a reopen clears it', () => {
    const m = twoCommitted();
    const poisoned = applied(m, poisonShard(m, poison(3)));
    expect(poisoned.poison?.generation).toBe(3);
    expect(poisonShard(poisoned, poison(null))).toBeNull();
    expect(() => commitGeneration(poisoned, 3, artifact(3))).toThrow(
      expect.objectContaining({ code: 'SHARD_POISONED' }),
    );
    expect(() => sealGenerations(poisoned, [sealed(4, 6, 6)])).toThrow(
      expect.objectContaining({ code: 'SHARD_POISONED' }),
    );
    expect(applied(poisoned, reopenShard(poisoned)).poison).toBeNull();
    expect(() => reopenShard(m)).toThrow(expect.objectContaining({ code: 'SHARD_NOT_POISONED' }));
  });

  it('I11: a poison for a generation that is committed by now changes nothing', () => {
    expect(poisonShard(twoCommitted(), poison(2))).toBeNull();
  });

  it("a commit drops a table-lane generation's members: its rows are read from L0 from then on", () => {
    const withMembers = { ...sealed(1, 1, 4), members: 'AQIDBAU=' };
    let m = applied(emptyShardManifest('t', 0), sealGenerations(emptyShardManifest('t', 0), [withMembers]));
    expect(m.sealed[0]!.members).toBe('AQIDBAU=');
    m = applied(m, commitGeneration(m, 1, artifact(1)));
    expect(m.committed[0]).not.toHaveProperty('members');
    expect(m.committed[0]).toMatchObject({ walFrom: 1, walTo: 4, path: 'gen/1' });
  });

  it('I4: a table-lane seal with no member moves sealed range and cursor only with nothing sealed waiting', () => {
    const idle = twoCommitted();
    const drained = applied(idle, commitGeneration(idle, 3, artifact(3)));
    expect([drained.sealedThrough, drained.walCursor]).toEqual([5, 5]);
    const advanced = applied(drained, advanceSealed(drained, 9));
    expect([advanced.sealedThrough, advanced.walCursor, advanced.nextGeneration]).toEqual([9, 9, 4]);
    expect(advanceSealed(advanced, 9)).toBeNull();
    expect(advanceSealed(advanced, 7)).toBeNull();
    // Generation 3 still sealed: the cursor must stop at its end, so nothing moves.
    expect(advanceSealed(idle, 9)).toBeNull();
    const poisoned = applied(drained, poisonShard(drained, poison(null)));
    expect(() => advanceSealed(poisoned, 9)).toThrow();
  });
});

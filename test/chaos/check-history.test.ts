import { describe, expect, it } from 'vitest';
import { checkHistory, violations } from './check-history.ts';
import type { FinalRow, ShardView, WriteRecord } from './history.ts';

let ids = 0;

/** A write that ran from `startedAt` to `endedAt` and ended as `outcome`. */
function write(
  kind: WriteRecord['kind'],
  keys: string[],
  value: string | null,
  [startedAt, endedAt]: [number, number],
  outcome: WriteRecord['outcome'] = 'acked',
): WriteRecord {
  ids += 1;
  const status = outcome === 'acked' ? 200 : outcome === 'rejected' ? 400 : null;
  return {
    id: `w${ids}`,
    kind,
    keys,
    value,
    idempotencyKey: null,
    attempts: [{ startedAt, endedAt, status }],
    outcome,
    startedAt,
    ackedAt: outcome === 'acked' ? endedAt : null,
  };
}

const upsert = (key: string, value: string, span: [number, number], outcome?: WriteRecord['outcome']) =>
  write('upsert', [key], value, span, outcome);
const remove = (key: string, span: [number, number], outcome?: WriteRecord['outcome']) =>
  write('delete', [key], null, span, outcome);

/** A shard that has flushed and merged everything: generations 1..n committed and merged. */
function settled(shard: number, generations: number): ShardView {
  return {
    shard,
    frontier: 10,
    walCursor: 10,
    sealedThrough: 10,
    currentGeneration: generations + 1,
    sealed: [],
    committed: Array.from({ length: generations }, (_, i) => ({ generation: i + 1 })),
    mergedThrough: generations,
    unsealedEntries: 0,
    poison: null,
  };
}

function verdictOf(writes: WriteRecord[], rows: FinalRow[], shards: ShardView[] = [settled(0, 2)]) {
  return checkHistory(writes, { rows, shards, deadLetters: 0 });
}

describe('chaos history checker', () => {
  it('passes a history whose final read holds the newest acked value of every key', () => {
    const verdict = verdictOf(
      [upsert('a', 'a1', [0, 1]), upsert('a', 'a2', [2, 3]), upsert('b', 'b1', [0, 1]), remove('b', [4, 5])],
      [{ k: 'a', v: 'a2' }],
    );
    expect(violations(verdict)).toBe(0);
    expect(verdict.problems).toEqual([]);
  });

  it('finds a lost write: an acked upsert that the final read does not hold', () => {
    const verdict = verdictOf([upsert('a', 'a1', [0, 1]), upsert('b', 'b1', [0, 1])], [{ k: 'b', v: 'b1' }]);
    expect(verdict).toMatchObject({ lost: 1, stale: 0, phantom: 0, duplicated: 0 });
    expect(verdict.problems).toEqual([expect.stringContaining('key a absent')]);
  });

  it('finds a stale value: an older value where a newer acked upsert was made', () => {
    const verdict = verdictOf([upsert('a', 'a1', [0, 1]), upsert('a', 'a2', [2, 3])], [{ k: 'a', v: 'a1' }]);
    expect(verdict).toMatchObject({ lost: 0, stale: 1, phantom: 0 });
  });

  it('finds a delete that did not hide the value it deleted', () => {
    const verdict = verdictOf([upsert('a', 'a1', [0, 1]), remove('a', [2, 3])], [{ k: 'a', v: 'a1' }]);
    expect(verdict.stale).toBe(1);
  });

  it('finds a phantom: a value no write put at that key, or one whose write was rejected', () => {
    const verdict = verdictOf(
      [upsert('a', 'a1', [0, 1]), upsert('b', 'b1', [0, 1], 'rejected')],
      [
        { k: 'a', v: 'zz' },
        { k: 'b', v: 'b1' },
        { k: 'c', v: 'a1' },
      ],
    );
    expect(verdict).toMatchObject({ phantom: 3, lost: 0, stale: 0 });
  });

  it('finds a duplicate: one key read twice', () => {
    const verdict = verdictOf(
      [upsert('a', 'a1', [0, 1])],
      [
        { k: 'a', v: 'a1' },
        { k: 'a', v: 'a1' },
      ],
    );
    expect(verdict.duplicated).toBe(1);
  });

  it('accepts either value of writes that overlapped in time', () => {
    const writes = [upsert('a', 'a1', [0, 5]), upsert('a', 'a2', [1, 4])];
    expect(violations(verdictOf(writes, [{ k: 'a', v: 'a1' }]))).toBe(0);
    expect(violations(verdictOf(writes, [{ k: 'a', v: 'a2' }]))).toBe(0);
  });

  it('lets an unanswered write take effect at any time, even after a later acked one', () => {
    const writes = [
      upsert('a', 'a1', [0, 1], 'indeterminate'),
      upsert('a', 'a2', [2, 3]),
      remove('b', [0, 1], 'indeterminate'),
    ];
    expect(violations(verdictOf(writes, [{ k: 'a', v: 'a1' }]))).toBe(0);
    expect(violations(verdictOf(writes, [{ k: 'a', v: 'a2' }]))).toBe(0);
    expect(verdictOf(writes, []).lost).toBe(1);
  });

  it('finds a shard left unflushed, unmerged, poisoned or with a generation gap, and dead letters', () => {
    const unflushed = { ...settled(0, 2), sealed: [{ generation: 3 }], unsealedEntries: 1 };
    const unmerged = { ...settled(1, 3), mergedThrough: 1 };
    const poisoned = { ...settled(2, 1), poison: { code: 'DATA_MISSING', generation: 2 } };
    const gap = { ...settled(3, 3), committed: [{ generation: 1 }, { generation: 3 }] };
    const verdict = checkHistory([], {
      rows: [],
      shards: [unflushed, unmerged, poisoned, gap],
      deadLetters: 2,
    });
    expect(verdict).toMatchObject({ unflushed: 1, unmerged: 1, poisoned: 1, gaps: 1, deadLetters: 2 });
    expect(violations(verdict)).toBe(6);
  });
});

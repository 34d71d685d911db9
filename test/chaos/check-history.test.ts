import { describe, expect, it } from 'vitest';
import { checkHistory, checkReads, violations } from './check-history.ts';
import type { FinalRow, ReadRecord, ShardView, WriteRecord } from './history.ts';

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
    table: 't',
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

  describe('reads during the run', () => {
    const read = (span: [number, number], seen: FinalRow[], extra: Partial<ReadRecord> = {}): ReadRecord => ({
      kind: 'lookup',
      table: 't',
      startedAt: span[0],
      endedAt: span[1],
      seen,
      duplicates: [],
      ...extra,
    });
    const absent = (k: string): FinalRow => ({ k, v: null });

    it('passes a read that sees every write acked before it began, or one that overlapped it', () => {
      const writes = [upsert('a', 'a1', [0, 1]), upsert('a', 'a2', [5, 8]), remove('b', [0, 1])];
      const reads = [
        read([2, 3], [{ k: 'a', v: 'a1' }, absent('b')]),
        read([6, 7], [{ k: 'a', v: 'a1' }]),
        read([6, 7], [{ k: 'a', v: 'a2' }]),
        read([9, 10], [{ k: 'a', v: 'a2' }]),
      ];
      expect(checkReads(writes, reads)).toEqual({ checked: 5, violations: 0, problems: [] });
    });

    it('finds a read that missed a write acked before it began, or saw an older value or a deleted one', () => {
      const writes = [
        upsert('a', 'a1', [0, 1]),
        upsert('a', 'a2', [2, 3]),
        upsert('b', 'b1', [0, 1]),
        remove('b', [2, 3]),
      ];
      const verdict = checkReads(writes, [
        read([4, 5], [absent('a')]),
        read([4, 5], [{ k: 'a', v: 'a1' }]),
        read([4, 5], [{ k: 'b', v: 'b1' }]),
      ]);
      expect(verdict.violations).toBe(3);
      expect(verdict.problems).toEqual([
        expect.stringContaining('lost: key a absent'),
        expect.stringContaining('stale: key a holds "a1"'),
        expect.stringContaining('stale: key b holds "b1"'),
      ]);
    });

    it('finds a value whose write began only after the read ended, and a key returned twice', () => {
      const verdict = checkReads(
        [upsert('a', 'a1', [10, 11])],
        [read([0, 5], [{ k: 'a', v: 'a1' }], { kind: 'scan', duplicates: ['a'] })],
      );
      expect(verdict.problems).toEqual([
        expect.stringContaining('key a returned twice'),
        expect.stringContaining('phantom: key a holds "a1"'),
      ]);
    });

    it('bounds a count between the keys that must be live and those that may be', () => {
      const writes = [
        upsert('a', 'a1', [0, 1]),
        upsert('b', 'b1', [0, 1]),
        remove('b', [2, 20], 'indeterminate'),
      ];
      const count = (rows: number) =>
        read([5, 6], [], { kind: 'count', count: { rows, keys: ['a', 'b', 'c'] } });
      expect(checkReads(writes, [count(1), count(2)]).violations).toBe(0);
      expect(checkReads(writes, [count(0), count(3)]).problems).toEqual([
        expect.stringContaining('count 0, but between 1 and 2'),
        expect.stringContaining('count 3, but between 1 and 2'),
      ]);
    });
  });

  describe('I19: a request to an all-or-nothing table', () => {
    const both = (value: string, span: [number, number], outcome?: WriteRecord['outcome']) =>
      write('upsert', ['t:"a"', 't:"b"'], value, span, outcome);
    const atomic = (writes: WriteRecord[], rows: FinalRow[], atomicTables = ['t']) =>
      checkHistory(writes, { rows, shards: [settled(0, 2)], deadLetters: 0, atomicTables });

    it('may hold on none of its keys, or on all of them, when it was never acked', () => {
      const older = both('old', [0, 1]);
      const lost = both('new', [2, 3], 'indeterminate');
      const none = atomic(
        [older, lost],
        [
          { k: 't:"a"', v: 'old' },
          { k: 't:"b"', v: 'old' },
        ],
      );
      const all = atomic(
        [older, lost],
        [
          { k: 't:"a"', v: 'new' },
          { k: 't:"b"', v: 'new' },
        ],
      );
      expect([violations(none), violations(all)]).toEqual([0, 0]);
    });

    it('fails when it holds on one key while another keeps an older value', () => {
      const older = both('old', [0, 1]);
      const half = both('new', [2, 3], 'indeterminate');
      const verdict = atomic(
        [older, half],
        [
          { k: 't:"a"', v: 'new' },
          { k: 't:"b"', v: 'old' },
        ],
      );
      expect(verdict.partial).toBe(1);
      expect(verdict.problems.join()).toContain('partial');
      // A table of shard lanes may apply an unacked request in part: nothing to say there.
      const shardLanes = atomic(
        [older, half],
        [
          { k: 't:"a"', v: 'new' },
          { k: 't:"b"', v: 'old' },
        ],
        [],
      );
      expect(violations(shardLanes)).toBe(0);
    });

    it('passes when a write that may be newer replaced it on the other key', () => {
      const first = both('new', [2, 3], 'indeterminate');
      const later = upsert('t:"b"', 'later', [2.5, 4]);
      const gone = remove('t:"a"', [2.5, 4]);
      expect(
        violations(
          atomic(
            [first, later],
            [
              { k: 't:"a"', v: 'new' },
              { k: 't:"b"', v: 'later' },
            ],
          ),
        ),
      ).toBe(0);
      expect(violations(atomic([first, gone], [{ k: 't:"b"', v: 'new' }]))).toBe(0);
    });
  });
});

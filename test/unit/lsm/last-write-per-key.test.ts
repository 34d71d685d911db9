import { describe, expect, it } from 'vitest';
import type { PackedKeys } from '../../../shared/arrow/key-codec.ts';
import { lastWritePerKey } from '../../../shared/lsm/last-write-per-key.ts';
import { seededRandom } from '../../support/random.ts';

function pack(keys: readonly Uint8Array[]): PackedKeys {
  const offsets = new Int32Array(keys.length + 1);
  keys.forEach((key, i) => {
    offsets[i + 1] = offsets[i]! + key.length;
  });
  const bytes = new Uint8Array(offsets[keys.length]!);
  keys.forEach((key, i) => {
    bytes.set(key, offsets[i]!);
  });
  return { count: keys.length, bytes, offsets };
}

/** The rule stated plainly: positions by key bytes then position, the last of each key kept. */
function reference(keys: readonly Uint8Array[]): number[] {
  return keys
    .map((key, position) => ({ key, position }))
    .sort((a, b) => Buffer.compare(a.key, b.key) || a.position - b.position)
    .filter((row, i, rows) => i === rows.length - 1 || Buffer.compare(row.key, rows[i + 1]!.key) !== 0)
    .map((row) => row.position);
}

const order = (keys: readonly Uint8Array[]) => Array.from(lastWritePerKey(pack(keys)));

/**
 * Keys built to tie on the eight bytes read past the shared prefix: a few stems (some
 * longer than those bytes, some sharing a head, one a prefix of another) followed by short
 * tails of bytes around zero and 0xff; a key may repeat an earlier one or a prefix of it.
 */
function randomKeys(random: () => number, count: number): Uint8Array[] {
  const pick = (n: number) => Math.floor(random() * n);
  const bytes = (n: number, alphabet: readonly number[]) =>
    Array.from({ length: n }, () => alphabet[pick(alphabet.length)]!);
  const head = bytes(pick(4), [7, 0, 255]);
  const stems = Array.from({ length: 1 + pick(5) }, () => [...head, ...bytes(pick(20), [0, 1, 9, 255])]);
  stems.push([...stems[0]!, ...bytes(pick(12), [0, 1])]);
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const earlier = keys[pick(keys.length)];
    if (earlier && roll < 0.25) keys.push(earlier.slice());
    else if (earlier && roll < 0.3) keys.push(earlier.slice(0, pick(earlier.length + 1)));
    else keys.push(Uint8Array.from([...stems[pick(stems.length)]!, ...bytes(pick(6), [0, 1, 2, 255])]));
  }
  return keys;
}

describe('the order of a sorted run (lastWritePerKey)', () => {
  it('keeps the last position of each key, in key order', () => {
    const key = (n: number) => Uint8Array.of(n);
    expect(order([key(2), key(1), key(2), key(3), key(1)])).toEqual([4, 2, 3]);
    expect(order([])).toEqual([]);
    expect(order([Uint8Array.of()])).toEqual([0]);
  });

  it('orders as comparing bytes then position, whatever prefix, length, zero bytes or repeats the keys share', () => {
    const seed = 20261201;
    const random = seededRandom(seed);
    for (let round = 0; round < 300; round++) {
      const keys = randomKeys(random, 1 + Math.floor(random() * (round % 3 === 0 ? 2000 : 60)));
      expect(order(keys), `seed ${seed}, round ${round}`).toEqual(reference(keys));
    }
  });

  it('orders keys that tie on all eight bytes read past the shared prefix by the rest of their bytes', () => {
    const long = (tail: number[]) => Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, ...tail]);
    const keys = [
      long([3]),
      long([1, 0]),
      Uint8Array.of(0),
      long([1]),
      long([]),
      long([3]),
      long([1, 0]),
      long([2]),
    ];
    expect(order(keys)).toEqual([2, 4, 3, 6, 7, 5]);
  });

  it('keeps only the newest of a long key written many times, among other keys', () => {
    const key = Uint8Array.from('tenant-42/customer-0000000001', (c) => c.charCodeAt(0));
    const keys = [Uint8Array.of(9), key, key.slice(), Uint8Array.of(0), key.slice()];
    expect(order(keys)).toEqual([3, 0, 4]);
  });

  it('sorts on every 16-bit digit of the words, high and low', () => {
    const random = seededRandom(7);
    const keys = Array.from({ length: 3000 }, () =>
      Uint8Array.from({ length: 8 }, () => Math.floor(random() * 256)),
    );
    expect(order(keys)).toEqual(reference(keys));
  });
});

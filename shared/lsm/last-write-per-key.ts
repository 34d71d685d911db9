/**
 * The order of a sorted run (docs/design.md, L0): rows by `compareBytes` of their encoded
 * key, of equal keys only the newest write (the highest position).
 *
 * Every key is read once as a sort key of three parts, taken from where the keys first
 * differ (`from`, the length of the prefix they all share): the eight bytes there as two
 * big-endian words, a key too short for them padded with zero bytes, and how many of those
 * eight bytes the key really has. Sorting positions by these parts orders the keys as their
 * bytes do, except among keys that have all eight bytes and tie on them; a stable LSD radix
 * sort over positions in order keeps every tie in position order. A tie of keys that end
 * within the eight bytes is one key written several times; a tie of keys that go on past
 * them is ordered by the rest of their bytes, then position.
 */
import { compareBytes, keyAt, type PackedKeys } from '../arrow/key-codec.ts';

/** Bytes of a key the sort key covers past the shared prefix. */
const COVERED = 8;

/** Row positions sorted by key; of equal keys only the latest position (the newest write) is kept. */
export function lastWritePerKey(keys: PackedKeys): Int32Array {
  const n = keys.count;
  const from = sharedPrefixLength(keys);
  const high = new Uint32Array(n);
  const low = new Uint32Array(n);
  const had = new Uint8Array(n);
  const { bytes, offsets } = keys;
  for (let i = 0; i < n; i++) {
    const start = offsets[i]! + from;
    const end = offsets[i + 1]!;
    high[i] = wordAt(bytes, start, end);
    low[i] = wordAt(bytes, start + 4, end);
    had[i] = Math.min(end - start, COVERED);
  }
  const order = sortByParts(n, high, low, had);
  const kept = new Int32Array(n);
  let count = 0;
  let i = 0;
  while (i < n) {
    const first = order[i]!;
    let end = i + 1;
    while (end < n) {
      const next = order[end]!;
      if (high[next] !== high[first] || low[next] !== low[first] || had[next] !== had[first]) break;
      end++;
    }
    if (end - i === 1) kept[count++] = first;
    else if (had[first]! < COVERED || allEqual(keys, order, i, end)) kept[count++] = order[end - 1]!;
    else count = keepNewestByBytes(keys, order.subarray(i, end), kept, count);
    i = end;
  }
  return kept.slice(0, count);
}

/**
 * Positions 0..n-1 sorted by (high, low, had), stable: one counting pass per 16-bit digit,
 * least significant first, skipping a digit all positions share.
 */
function sortByParts(n: number, high: Uint32Array, low: Uint32Array, had: Uint8Array): Int32Array {
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let spare = new Int32Array(n);
  const digit = new Uint16Array(n);
  const counts = new Uint32Array(1 << 16);
  const digits: Array<[Uint32Array | Uint8Array, number]> = [
    [had, 0],
    [low, 0],
    [low, 16],
    [high, 0],
    [high, 16],
  ];
  for (const [words, shift] of digits) {
    if (((bitsThatVary(words) >>> shift) & 0xffff) === 0) continue;
    for (let i = 0; i < n; i++) digit[i] = (words[i]! >>> shift) & 0xffff;
    countingPass(order, spare, digit, counts);
    [order, spare] = [spare, order];
  }
  return order;
}

/** The bits in which some word differs from the first. */
function bitsThatVary(words: Uint32Array | Uint8Array): number {
  const first = words[0] ?? 0;
  let varying = 0;
  for (let i = 0; i < words.length; i++) varying |= words[i]! ^ first;
  return varying;
}

/** Scatters `src` into `dst` by `digit` (indexed by position), keeping the order of equal digits. */
function countingPass(src: Int32Array, dst: Int32Array, digit: Uint16Array, counts: Uint32Array): void {
  const n = src.length;
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[digit[i]!]!++;
  let sum = 0;
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
  for (let i = 0; i < n; i++) {
    const position = src[i]!;
    dst[counts[digit[position]!]!++] = position;
  }
}

/** Whether the keys at `order[from, to)` are one key: the common tie, a key written again. */
function allEqual(keys: PackedKeys, order: Int32Array, from: number, to: number): boolean {
  const { bytes, offsets } = keys;
  const first = offsets[order[from]!]!;
  const length = offsets[order[from]! + 1]! - first;
  for (let k = from + 1; k < to; k++) {
    const start = offsets[order[k]!]!;
    if (offsets[order[k]! + 1]! - start !== length) return false;
    for (let i = 0; i < length; i++) if (bytes[start + i] !== bytes[first + i]) return false;
  }
  return true;
}

/** Orders a tie of keys longer than the covered bytes by all their bytes, then position; keeps the newest of each key. */
function keepNewestByBytes(keys: PackedKeys, tie: Int32Array, kept: Int32Array, count: number): number {
  const rows = Array.from(tie, (position) => ({ position, key: keyAt(keys, position) }));
  rows.sort((a, b) => compareBytes(a.key, b.key) || a.position - b.position);
  let out = count;
  rows.forEach((row, i) => {
    const next = rows[i + 1];
    if (next === undefined || compareBytes(row.key, next.key) !== 0) kept[out++] = row.position;
  });
  return out;
}

/** Four bytes from `at` as a big-endian word; bytes at or past `end` read as zero. */
function wordAt(bytes: Uint8Array, at: number, end: number): number {
  let word = 0;
  for (let i = at; i < at + 4; i++) word = word * 256 + (i < end ? bytes[i]! : 0);
  return word;
}

function sharedPrefixLength(keys: PackedKeys): number {
  if (keys.count === 0) return 0;
  const { bytes, offsets } = keys;
  const first = offsets[0]!;
  let shared = offsets[1]! - first;
  for (let k = 1; k < keys.count && shared > 0; k++) {
    const start = offsets[k]!;
    const length = Math.min(shared, offsets[k + 1]! - start);
    let i = 0;
    while (i < length && bytes[start + i] === bytes[first + i]) i++;
    shared = i;
  }
  return shared;
}

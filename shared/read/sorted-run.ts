/**
 * A sorted run: rows of one immutable object (a WAL entry or an L0 file) ordered by
 * encoded key, one row per key (the newest within the object). Reads search runs newest
 * first, so the first run that has a key holds its newest value.
 */
import type { RecordBatch, Table } from 'apache-arrow';
import { compareBytes, keyAt } from '../arrow/key-codec.ts';
import { KEY_COLUMN, opsOf } from '../lsm/run-file.ts';
import type { RunKeying, WalRows } from '../lsm/run-keys.ts';
import { OP_DELETE } from '../wal/wal-entry.ts';

export interface SortedRun {
  readonly size: number;
  /** The batches the rows live in, and each row's position across them. */
  readonly batches: readonly RecordBatch[];
  key(i: number): Uint8Array;
  isDelete(i: number): boolean;
  position(i: number): number;
}

/** Index of the first row whose key is >= `key` (or > `key` when `strict`). */
export function seek(run: SortedRun, key: Uint8Array, strict = false): number {
  let lo = 0;
  let hi = run.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const cmp = compareBytes(run.key(mid), key);
    if (cmp < 0 || (strict && cmp === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function find(run: SortedRun, key: Uint8Array): number | null {
  const i = seek(run, key);
  return i < run.size && compareBytes(run.key(i), key) === 0 ? i : null;
}

/** A WAL entry's rows as a run: sorted and reduced to the last write per key (`run-keys.ts`). */
export function walRun(keying: RunKeying, entry: WalRows): SortedRun {
  const batches = entry.table.batches;
  const { keys, order } = keying(batches, [entry]);
  const ops = opsOf(batches);
  return {
    size: order.length,
    batches,
    key: (i) => keyAt(keys, order[i]!),
    isDelete: (i) => ops[order[i]!] === OP_DELETE,
    position: (i) => order[i]!,
  };
}

/** An L0 run file is already a run: sorted, one row per key, keys stored beside the rows. */
export function fileRun(table: Table): SortedRun {
  const batches = table.batches;
  const keys: Uint8Array[] = [];
  for (const batch of batches) {
    const data = batch.getChild(KEY_COLUMN)?.data[0];
    if (!data) continue;
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    for (let row = 0; row < batch.numRows; row++) {
      keys.push(bytes.subarray(offsets[data.offset + row]!, offsets[data.offset + row + 1]!));
    }
  }
  const ops = opsOf(batches);
  return {
    size: keys.length,
    batches,
    key: (i) => keys[i]!,
    isDelete: (i) => ops[i] === OP_DELETE,
    position: (i) => i,
  };
}

const hexKeys = new WeakMap<SortedRun, string[]>();

/** A run's keys as hex strings (set members), kept with the run: runs are cached with their immutable object. */
export function hexKeysOf(run: SortedRun): string[] {
  let keys = hexKeys.get(run);
  if (!keys) {
    keys = Array.from({ length: run.size }, (_, i) => Buffer.from(run.key(i)).toString('hex'));
    hexKeys.set(run, keys);
  }
  return keys;
}

/**
 * The identity of a row of an append-only table: where it landed, (shard u16, seq u64,
 * row u32) big-endian, 14 bytes. Put-if-absent lets one object exist per shard and seq, and
 * its bytes never change, so the id is exact and a pure function of the WAL (I13). Byte
 * order is (shard, seq, row) order: the rows of entries read in seq order have ids already
 * sorted. The shard is part of it because a scan merges every shard's overlay by key, and
 * ids without it would collide across shards (docs/design.md, "Append-only tables").
 */
import type { PackedKeys } from './key-codec.ts';

export const ROW_ID_BYTES = 14;
const TWO_32 = 4_294_967_296;

/** How many rows the entry at `seq` holds. */
export interface EntryRowCount {
  seq: number;
  rows: number;
}

/** The ids of every row of `entries` (in seq order) of `shard`, in that order, packed. */
export function rowIdsOf(shard: number, entries: readonly EntryRowCount[]): PackedKeys {
  const count = entries.reduce((sum, e) => sum + e.rows, 0);
  const bytes = new Uint8Array(count * ROW_ID_BYTES);
  const view = new DataView(bytes.buffer);
  const offsets = new Int32Array(count + 1);
  let at = 0;
  for (const { seq, rows } of entries) {
    const seqHigh = Math.floor(seq / TWO_32);
    const seqLow = seq % TWO_32;
    for (let row = 0; row < rows; row++, at++) {
      const byte = at * ROW_ID_BYTES;
      view.setUint16(byte, shard);
      view.setUint32(byte + 2, seqHigh);
      view.setUint32(byte + 6, seqLow);
      view.setUint32(byte + 10, row);
      offsets[at + 1] = byte + ROW_ID_BYTES;
    }
  }
  return { count, bytes, offsets };
}

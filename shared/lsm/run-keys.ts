/**
 * Which rows of WAL entries a sorted run keeps, and under which keys (docs/design.md, "L0"):
 * on a keyed table the encoded primary key, and of the writes of one key only the newest;
 * on an append-only table the row's id (`row-id.ts`) and every row, in landing order,
 * which is already id order.
 */
import type { RecordBatch, Table } from 'apache-arrow';
import { type KeyCodec, keyCodecFor, type PackedKeys } from '../arrow/key-codec.ts';
import { rowIdsOf } from '../arrow/row-id.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';
import { lastWritePerKey } from './last-write-per-key.ts';

/** The rows of one WAL entry and its seq. */
export interface WalRows {
  seq: number;
  table: Table;
}

export interface RunKeys {
  /** The key of every input row, in input order. */
  keys: PackedKeys;
  /** The input positions the run keeps, in key order. */
  order: Int32Array;
}

/** Keys `batches`, the rows of `entries` (oldest first) in order. */
export type RunKeying = (batches: readonly RecordBatch[], entries: readonly WalRows[]) => RunKeys;

export function runKeyingFor(table: TableDef, shard: number): RunKeying {
  return isAppendOnly(table) ? byRowId(shard) : byPrimaryKey(keyCodecFor(table.schema));
}

export function byPrimaryKey(codec: KeyCodec): RunKeying {
  return (batches) => {
    const keys = codec.encodeRowsPacked(batches);
    return { keys, order: lastWritePerKey(keys) };
  };
}

export function byRowId(shard: number): RunKeying {
  return (_batches, entries) => {
    const keys = rowIdsOf(
      shard,
      entries.map((e) => ({ seq: e.seq, rows: e.table.numRows })),
    );
    return { keys, order: Int32Array.from({ length: keys.count }, (_, i) => i) };
  };
}

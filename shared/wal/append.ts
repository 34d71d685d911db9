/**
 * What a write does to the WAL (docs/design.md, "Write"): route rows to shards by key, and
 * resolve once they are durable (I1). On a table lane (docs/table-wal-lane.md) the request is
 * one entry whatever shards it touches: all or nothing (I19). On shard lanes it is one entry
 * per shard, written side by side, and acked only when all of them landed; when one fails,
 * the others may still be durable — an upsert or delete retried in full is harmless. A
 * request to an append-only table goes whole to one shard, so it is one entry: all or nothing.
 */
import type { RecordBatch, Table } from 'apache-arrow';
import { jsonRowsToRecordBatch } from '../arrow/json-rows.ts';
import { keyCodecFor } from '../arrow/key-codec.ts';
import type { TableSchema } from '../arrow/schema.ts';
import { concatBatches, takeRows } from '../arrow/take.ts';
import { walAckPhase } from '../metrics.ts';
import { shardOfRequest, shardsOfKeys } from '../table/shard-routing.ts';
import { assertHasKey, isAppendOnly, type TableDef } from '../table/table-def.ts';
import { type NotedPut, OP_DELETE, OP_UPSERT, type Op, type WalWrite } from './wal-entry.ts';
import type { WalWriter } from './wal-writer.ts';

export interface ShardAck {
  shard: number;
  seq: number;
}

export interface AppendResult {
  acked: number;
  shards: ShardAck[];
}

/** Upserts rows given as Arrow data of the table's schema; `beforePut` is told of each entry's put first. */
export function appendRows(
  wal: WalWriter,
  table: TableDef,
  rows: Table | RecordBatch,
  beforePut?: WalWrite['beforePut'],
): Promise<AppendResult> {
  return append(wal, table, 'batches' in rows ? rows.batches : [rows], OP_UPSERT, beforePut);
}

/** The ack of an append whose noted put landed (shared/wal/seq-decision.ts). */
export function ackOfNotedPut(put: NotedPut): AppendResult {
  return { acked: put.rows, shards: [{ shard: put.shard, seq: put.seq }] };
}

/** Deletes by primary key; `keys` as clients give them (scalars, or arrays for composite keys). */
export function deleteKeys(wal: WalWriter, table: TableDef, keys: readonly unknown[]): Promise<AppendResult> {
  assertHasKey(table, 'a delete');
  const codec = keyCodecFor(table.schema);
  const rows = keys.map((input) => {
    const values = codec.parse(input);
    return Object.fromEntries(codec.columns.map((column, i) => [column.name, keyJson(values[i]!)]));
  });
  return append(wal, table, [jsonRowsToRecordBatch(deleteSchema(table.schema), rows)], OP_DELETE);
}

async function append(
  wal: WalWriter,
  table: TableDef,
  batches: RecordBatch[],
  op: Op,
  beforePut?: WalWrite['beforePut'],
): Promise<AppendResult> {
  const perShard = routeByShard(table, batches);
  const acked = batches.reduce((sum, b) => sum + b.numRows, 0);
  if (table.walLane === 'table' && perShard.size > 0) {
    const write = new Map([...perShard].map(([shard, part]) => [shard, { ...part, op }]));
    const seq = await wal.writeToTable(table, write);
    return { acked, shards: [...perShard.keys()].sort((a, b) => a - b).map((shard) => ({ shard, seq })) };
  }
  const ackedAt: number[] = [];
  const results = await Promise.allSettled(
    [...perShard].map(async ([shard, part]) => {
      const batch = part.rows ? takeRows([part.batch], part.rows) : part.batch;
      const seq = await wal.write(table, shard, beforePut ? { batch, op, beforePut } : { batch, op });
      ackedAt.push(performance.now());
      return { shard, seq };
    }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  observeShardWaits(ackedAt);
  const shards = results
    .map((r) => (r as PromiseFulfilledResult<ShardAck>).value)
    .sort((a, b) => a.shard - b.shard);
  return { acked, shards };
}

/** How long each shard's ack waited for the request's last one (`walAckPhase`, "shards"). */
function observeShardWaits(ackedAt: number[]): void {
  const last = Math.max(...ackedAt);
  for (const at of ackedAt) walAckPhase.observe({ phase: 'shards' }, (last - at) / 1000);
}

/** Rows of a request that go to one shard: `batch`, or those of its `rows` (WalWrite.rows). */
type ShardRows = Pick<WalWrite, 'batch' | 'rows'>;

/**
 * The rows of each shard. A batch whose rows all go to one shard is passed on as it is; a
 * lone batch's rows of each shard are named by index, not copied (a table lane's entry
 * gathers them once for every shard); several batches' are gathered here.
 */
function routeByShard(table: TableDef, batches: RecordBatch[]): Map<number, ShardRows> {
  // One shard takes every row: no key needs encoding to know where it goes.
  const only = batches.length === 1 ? batches[0]! : null;
  if (table.shards === 1 && only && only.numRows > 0) return new Map([[0, { batch: only }]]);
  if (isAppendOnly(table)) return wholeRequest(table, batches);
  const keys = keyCodecFor(table.schema).encodeRowsPacked(batches);
  const rowsOf = rowsByShard(shardsOfKeys(keys, table.shards), table.shards);
  const out = new Map<number, ShardRows>();
  for (const [shard, rows] of rowsOf) {
    if (only && rowsOf.size === 1) out.set(shard, { batch: only });
    else if (only) out.set(shard, { batch: only, rows });
    else out.set(shard, { batch: takeRows(batches, rows) });
  }
  return out;
}

/** The rows of each shard that `shardOfRow` names (each below `shards`), ascending. */
function rowsByShard(shardOfRow: Int32Array, shards: number): Map<number, Int32Array> {
  const counts = new Int32Array(shards);
  for (const shard of shardOfRow) counts[shard]!++;
  const rows = Array.from(counts, (count) => new Int32Array(count));
  const filled = new Int32Array(shards);
  for (let row = 0; row < shardOfRow.length; row++) {
    const shard = shardOfRow[row]!;
    rows[shard]![filled[shard]!++] = row;
  }
  const rowsOf = new Map<number, Int32Array>();
  for (const [shard, own] of rows.entries()) if (own.length > 0) rowsOf.set(shard, own);
  return rowsOf;
}

/** An append-only request's rows, all to one shard. */
function wholeRequest(table: TableDef, batches: RecordBatch[]): Map<number, ShardRows> {
  if (batches.every((b) => b.numRows === 0)) return new Map();
  const batch = batches.length === 1 ? batches[0]! : concatBatches(batches);
  return new Map([[shardOfRequest(table.shards), { batch }]]);
}

/** Deletes carry only their key: every other column is null. */
function deleteSchema(schema: TableSchema): TableSchema {
  const keys = new Set(schema.primaryKey);
  return { ...schema, fields: schema.fields.map((f) => (keys.has(f.name) ? f : { ...f, nullable: true })) };
}

function keyJson(value: number | bigint | string): number | string {
  return typeof value === 'bigint' ? value.toString() : value;
}

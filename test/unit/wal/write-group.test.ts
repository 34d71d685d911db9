/**
 * Write groups (shared/wal/write-group.ts): a group is full at its limits of rows or bytes,
 * counted as the WAL entry will hold them, so a request whose shards name rows of one batch
 * (WalWrite.rows) counts that batch once, not once per shard.
 */
import { describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../../shared/arrow/schema.ts';
import { OP_UPSERT, type WalWrite } from '../../../shared/wal/wal-entry.ts';
import { WriteGroups } from '../../../shared/wal/write-group.ts';

const schema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'label', type: 'utf8', nullable: true },
    ],
  },
  ['id'],
);

const batch = jsonRowsToRecordBatch(
  schema,
  Array.from({ length: 100 }, (_, id) => ({ id, label: `label-${id}` })),
);
const waiter = () => ({ resolve() {}, reject() {}, joinedAt: performance.now() });

/** The batch's rows split over four shards by index, as a table lane's request is. */
function routedOverFourShards() {
  return new Map<number, WalWrite>(
    [0, 1, 2, 3].map((shard) => [
      shard,
      {
        batch,
        op: OP_UPSERT,
        rows: Int32Array.from({ length: 25 }, (_, i) => i * 4 + shard),
      },
    ]),
  );
}

describe('write groups', () => {
  it('count a request whose shards name rows of one batch as that batch: its rows and bytes once', () => {
    const groups = new WriteGroups({ maxBytes: Number.POSITIVE_INFINITY, maxRows: Number.POSITIVE_INFINITY });
    groups.add(routedOverFourShards(), waiter());
    expect(groups.head!.rows).toBe(100);
    expect(groups.head!.bytes).toBeCloseTo(batch.data.byteLength, 6);
  });

  it('open a new group once the bytes limit is reached by such requests', () => {
    const groups = new WriteGroups({
      maxBytes: batch.data.byteLength * 2,
      maxRows: Number.POSITIVE_INFINITY,
    });
    for (let i = 0; i < 3; i++) groups.add(routedOverFourShards(), waiter());
    expect(groups.length).toBe(2);
    expect(groups.head!.writes.length).toBe(2);
  });
});

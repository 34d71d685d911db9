import { describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../../shared/arrow/json-rows.ts';
import {
  decodeWalEntry,
  encodeHole,
  encodeWalEntry,
  OP_COLUMN,
  OP_DELETE,
  OP_UPSERT,
  type WalWrite,
} from '../../../shared/wal/wal-entry.ts';
import { kvSchema } from '../../support/wal-rows.ts';

function upserts(rows: Array<{ id: number; v: string | null }>): WalWrite {
  return { batch: jsonRowsToRecordBatch(kvSchema, rows), op: OP_UPSERT };
}

function deletes(ids: number[]): WalWrite {
  return {
    batch: jsonRowsToRecordBatch(
      kvSchema,
      ids.map((id) => ({ id, v: null })),
    ),
    op: OP_DELETE,
  };
}

describe('WAL entries', () => {
  it('holds a group of small writes as one record batch, rows and ops in write order', () => {
    const body = encodeWalEntry(kvSchema, [
      upserts([
        { id: 1, v: 'a' },
        { id: 2, v: null },
      ]),
      deletes([1]),
      upserts([{ id: 3, v: 'c' }]),
    ]);
    const entry = decodeWalEntry(body, 7);
    if (entry.kind !== 'rows') throw new Error('expected rows');
    expect(entry.table.batches).toHaveLength(1);
    expect([...(entry.table.getChild('id') ?? [])]).toEqual([1, 2, 1, 3]);
    expect([...(entry.table.getChild('v') ?? [])]).toEqual(['a', null, null, 'c']);
    expect([...(entry.table.getChild(OP_COLUMN) ?? [])]).toEqual([
      OP_UPSERT,
      OP_UPSERT,
      OP_DELETE,
      OP_UPSERT,
    ]);
  });

  it('keeps big writes in record batches of their own', () => {
    const big = (from: number) =>
      upserts(Array.from({ length: 300 }, (_, i) => ({ id: from + i, v: String(from + i) })));
    const entry = decodeWalEntry(encodeWalEntry(kvSchema, [big(0), big(300)]), 8);
    if (entry.kind !== 'rows') throw new Error('expected rows');
    expect(entry.table.batches.map((b) => b.numRows)).toEqual([300, 300]);
    expect([...(entry.table.getChild('id') ?? [])]).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });

  it('gives every row of a lone write its op', () => {
    const entry = decodeWalEntry(encodeWalEntry(kvSchema, [deletes([4, 5])]), 9);
    if (entry.kind !== 'rows') throw new Error('expected rows');
    expect([...(entry.table.getChild('id') ?? [])]).toEqual([4, 5]);
    expect([...(entry.table.getChild(OP_COLUMN) ?? [])]).toEqual([OP_DELETE, OP_DELETE]);
    expect(entry.table.schema.fields.map((f) => [f.name, f.nullable])).toEqual([
      ['id', false],
      ['v', true],
      [OP_COLUMN, false],
    ]);
  });

  it('tells a hole from rows', () => {
    expect(decodeWalEntry(encodeHole(9), 9)).toEqual({ kind: 'hole', seq: 9 });
  });
});

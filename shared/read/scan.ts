/**
 * Ordered scan by primary key, paginated with an opaque cursor. All runs of all shards and
 * of the base are merged by key; of runs holding the same key the newest wins, and a
 * delete hides the key. Shards hold disjoint keys, so their runs rank among themselves in
 * any order, all before the base runs.
 */
import type { Table } from 'apache-arrow';
import { compareBytes, keyCodecFor } from '../arrow/key-codec.ts';
import type { TableDef } from '../table/table-def.ts';
import { projectRows, type RowRef } from './project-rows.ts';
import { type ReadDeps, readSnapshot } from './read-snapshot.ts';
import { decodeScanCursor, encodeScanCursor } from './scan-cursor.ts';
import { type SortedRun, seek } from './sorted-run.ts';

export interface ScanPage {
  rows: Table;
  /** Cursor for the next page, or null when this page reached the end. */
  next: string | null;
}

interface Cursor {
  run: SortedRun;
  /** Lower = newer; decides between runs holding the same key. */
  rank: number;
  at: number;
}

export async function scanRows(
  deps: ReadDeps,
  table: TableDef,
  options: { limit: number; after?: string | null },
  signal?: AbortSignal,
): Promise<ScanPage> {
  const codec = keyCodecFor(table.schema);
  const after = options.after ? decodeScanCursor(codec, options.after) : null;
  const shards = Array.from({ length: table.shards }, (_, shard) => shard);
  const { runs } = await readSnapshot(deps, table, shards, { signal });
  const heap = new CursorHeap(
    runs
      .map((run, rank) => ({ run, rank, at: after ? seek(run, after, true) : 0 }))
      .filter((c) => c.at < c.run.size),
  );
  const refs: RowRef[] = [];
  let lastKey: Uint8Array | null = null;
  while (refs.length < options.limit) {
    const newest = heap.pop();
    if (!newest) break;
    const key = newest.run.key(newest.at);
    heap.skipKey(key);
    if (!newest.run.isDelete(newest.at)) {
      refs.push({ batches: newest.run.batches, position: newest.run.position(newest.at) });
      lastKey = key;
    }
    heap.advance(newest);
  }
  const more = refs.length === options.limit && heap.size > 0;
  return { rows: projectRows(table, refs), next: more && lastKey ? encodeScanCursor(lastKey) : null };
}

/** A min-heap of run cursors ordered by (key, rank). */
class CursorHeap {
  private readonly items: Cursor[] = [];

  constructor(cursors: Cursor[]) {
    for (const cursor of cursors) this.push(cursor);
  }

  get size(): number {
    return this.items.length;
  }

  pop(): Cursor | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (top && last && top !== last) {
      this.items[0] = last;
      this.down(0);
    }
    return top;
  }

  /** Moves `cursor` (already popped) to its next row and back into the heap, if it has one. */
  advance(cursor: Cursor): void {
    cursor.at++;
    if (cursor.at < cursor.run.size) this.push(cursor);
  }

  /** Older versions of `key` in other runs are shadowed by the one just taken. */
  skipKey(key: Uint8Array): void {
    for (;;) {
      const top = this.items[0];
      if (!top || compareBytes(top.run.key(top.at), key) !== 0) return;
      this.pop();
      this.advance(top);
    }
  }

  private push(cursor: Cursor): void {
    this.items.push(cursor);
    this.up(this.items.length - 1);
  }

  private less(a: Cursor, b: Cursor): boolean {
    return (compareBytes(a.run.key(a.at), b.run.key(b.at)) || a.rank - b.rank) < 0;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i]!, this.items[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.items.length && this.less(this.items[left]!, this.items[smallest]!)) smallest = left;
      if (right < this.items.length && this.less(this.items[right]!, this.items[smallest]!)) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b]!, this.items[a]!];
  }
}

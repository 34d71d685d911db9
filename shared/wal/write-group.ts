/**
 * The writes of one WAL lane waiting for a put, in arrival order. The newest group takes
 * every write that arrives until it reaches the entry limits; then a new group starts
 * behind it. Each group becomes one WAL entry: one seq, one put, one answer for all its
 * writers. A write is never split across groups: in a table lane it may hold rows of several
 * shards, and all of them land in one entry or none do.
 */
import type { LaneWrite } from './lane-coordination.ts';
import { writeRows } from './wal-entry.ts';

export interface Waiter {
  resolve(seq: number): void;
  reject(err: unknown): void;
  /** `performance.now()` when the write joined its group. */
  joinedAt: number;
}

export interface WriteGroup {
  writes: LaneWrite[];
  rows: number;
  bytes: number;
  waiters: Waiter[];
  /** `performance.now()` when its first write joined: how long its writers have waited. */
  openedAt: number;
}

export interface GroupLimits {
  maxBytes: number;
  maxRows: number;
}

export class WriteGroups {
  private readonly groups: WriteGroup[] = [];

  constructor(private readonly limits: GroupLimits) {}

  get length(): number {
    return this.groups.length;
  }

  /** The oldest group, the one the next put would take. */
  get head(): WriteGroup | undefined {
    return this.groups[0];
  }

  add(write: LaneWrite, waiter: Waiter): void {
    const last = this.groups.at(-1);
    const group = last && !this.isFull(last) ? last : this.open();
    group.writes.push(write);
    for (const part of write.values()) {
      const rows = writeRows(part);
      group.rows += rows;
      // A part naming some of a shared batch's rows counts its share of the batch's bytes.
      group.bytes += part.rows
        ? (part.batch.data.byteLength * rows) / part.batch.numRows
        : part.batch.data.byteLength;
    }
    group.waiters.push(waiter);
  }

  take(): WriteGroup | undefined {
    return this.groups.shift();
  }

  private open(): WriteGroup {
    const group: WriteGroup = { writes: [], rows: 0, bytes: 0, waiters: [], openedAt: performance.now() };
    this.groups.push(group);
    return group;
  }

  private isFull(group: WriteGroup): boolean {
    return group.bytes >= this.limits.maxBytes || group.rows >= this.limits.maxRows;
  }
}

/**
 * The opaque `after` cursor of a scan: base64url of the snapshot the scan pinned on its
 * first page (base and shard manifest versions, the WAL entries it listed), when that was,
 * where the scan stands — past an encoded key of the overlay, or at an offset of the
 * base dataset — the key range and filter it scans, which every page must ask for again, and
 * the retention cutoff it took, so a row expiring mid-scan is in every page or in none.
 * Anything that does not decode to that shape is refused.
 */
import { z } from 'zod';
import { SluiceError } from '../errors.ts';
import type { SnapshotPin } from './read-snapshot.ts';

const PREFIX = 's2.';
/** More WAL entries than any shard's tail holds before its seal runs: a cursor naming more is forged. */
const MAX_PINNED_ENTRIES = 1_000_000;

export interface ScanCursor {
  pin: SnapshotPin;
  /** When the scan's first page was read (ms since the epoch). */
  pinnedAt: number;
  /** In the overlay: the encoded key (hex) of the last row returned. */
  afterKey: string | null;
  /** In the base: rows of the pinned version already passed (0 while in the overlay). */
  baseOffset: number;
  phase: 'overlay' | 'base';
  /** The encoded bounds (hex) of the scan's key range: the base offset counts rows of that range only. */
  range: [string | null, string | null];
  /** The id of the scan's row filter (`ScanFilter.id`), or null for every row. */
  filter: string | null;
}

const seq = z.number().int().nonnegative();
/** WAL seqs as inclusive [from, to] runs: a tail is mostly consecutive. */
const Ranges = z.array(z.tuple([seq, seq]));
const hex = z.string().regex(/^([0-9a-f]{2})*$/);

const Wire = z
  .object({
    b: seq,
    s: z.array(z.object({ m: seq, w: Ranges }).strict()),
    t: seq,
    k: hex.nullable(),
    o: seq,
    p: z.enum(['overlay', 'base']),
    // Absent in cursors of scans made before ranges existed, which scanned every key.
    r: z.tuple([hex.nullable(), hex.nullable()]).optional(),
    // Absent in cursors of scans without a filter.
    f: hex.nullable().optional(),
    // The retention cutoff; absent in cursors of tables without retention.
    c: z.number().int().nullable().optional(),
  })
  .strict();

export function encodeScanCursor(cursor: ScanCursor): string {
  const wire: z.infer<typeof Wire> = {
    b: cursor.pin.base,
    s: cursor.pin.shards.map((s) => ({ m: s.manifest, w: toRanges(s.wal) })),
    t: cursor.pinnedAt,
    k: cursor.afterKey,
    o: cursor.baseOffset,
    p: cursor.phase,
    r: cursor.range,
    f: cursor.filter,
    c: cursor.pin.cutoff,
  };
  return PREFIX + Buffer.from(JSON.stringify(wire)).toString('base64url');
}

export function decodeScanCursor(cursor: string, shards: number): ScanCursor {
  const invalid = () =>
    new SluiceError('INVALID_CURSOR', 'the scan cursor is malformed; pass the `next` of the previous page', {
      cursor: cursor.slice(0, 64),
    });
  const body = cursor.startsWith(PREFIX) ? cursor.slice(PREFIX.length) : null;
  if (body === null || !/^[A-Za-z0-9_-]+$/.test(body)) throw invalid();
  let parsed: z.infer<typeof Wire>;
  try {
    parsed = Wire.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  const listed = parsed.s.reduce(
    (sum, s) => sum + s.w.reduce((n, [from, to]) => n + Math.max(0, to - from + 1), 0),
    0,
  );
  if (parsed.s.length !== shards || listed > MAX_PINNED_ENTRIES) throw invalid();
  return {
    pin: {
      base: parsed.b,
      shards: parsed.s.map((s) => ({ manifest: s.m, wal: fromRanges(s.w) })),
      cutoff: parsed.c ?? null,
    },
    pinnedAt: parsed.t,
    afterKey: parsed.k,
    baseOffset: parsed.o,
    phase: parsed.p,
    range: parsed.r ?? [null, null],
    filter: parsed.f ?? null,
  };
}

function toRanges(seqs: readonly number[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const s of seqs) {
    const last = ranges.at(-1);
    if (last && last[1] + 1 === s) last[1] = s;
    else ranges.push([s, s]);
  }
  return ranges;
}

function fromRanges(ranges: ReadonlyArray<readonly [number, number]>): number[] {
  return ranges.flatMap(([from, to]) =>
    Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i),
  );
}

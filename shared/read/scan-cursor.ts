/**
 * The opaque `after` cursor of a scan: base64url of the snapshot the scan pinned on its
 * first page (base and shard manifest versions, the WAL entries it listed), when that was,
 * where the scan stands — past an encoded key of the overlay, or at an offset of the
 * base dataset — the key range and filter it scans, which every page must ask for again, and
 * the retention cutoff it took, so a row expiring mid-scan is in every page or in none.
 * Anything that does not decode to that shape is refused.
 *
 * A table's lane decides the prefix: `s2.` pins each shard's listing of its own lane, `s3.`
 * the one listing of a table lane (docs/table-wal-lane.md, §5). A cursor of the other kind
 * cannot name the snapshot of this table, so it is refused.
 */
import { z } from 'zod';
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import type { SnapshotPin } from './read-snapshot.ts';

const SHARD_LANE_PREFIX = 's2.';
const TABLE_LANE_PREFIX = 's3.';
/** More WAL entries than a table's tails hold before their seals run: a cursor naming more is forged. */
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

const Common = {
  b: seq,
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
};

/** `s2.`: per shard, its manifest version and its own lane's listing. */
const ShardLaneWire = z.object({ ...Common, s: z.array(z.object({ m: seq, w: Ranges }).strict()) }).strict();

/** `s3.`: per shard, its manifest version; the table lane's one listing. */
const TableLaneWire = z.object({ ...Common, s: z.array(z.object({ m: seq }).strict()), l: Ranges }).strict();

type CommonWire = Omit<z.infer<typeof ShardLaneWire>, 's'>;

export function encodeScanCursor(cursor: ScanCursor): string {
  const common: CommonWire = {
    b: cursor.pin.base,
    t: cursor.pinnedAt,
    k: cursor.afterKey,
    o: cursor.baseOffset,
    p: cursor.phase,
    r: cursor.range,
    f: cursor.filter,
    c: cursor.pin.cutoff,
  };
  const { lane } = cursor.pin;
  const [prefix, wire] =
    lane === null
      ? [
          SHARD_LANE_PREFIX,
          { ...common, s: cursor.pin.shards.map((s) => ({ m: s.manifest, w: toRanges(s.wal) })) },
        ]
      : [
          TABLE_LANE_PREFIX,
          { ...common, s: cursor.pin.shards.map((s) => ({ m: s.manifest })), l: toRanges(lane) },
        ];
  return prefix + Buffer.from(JSON.stringify(wire)).toString('base64url');
}

/** The cursor of a scan of `table`, or INVALID_CURSOR when it cannot be one. */
export function decodeScanCursor(cursor: string, table: Pick<TableDef, 'shards' | 'walLane'>): ScanCursor {
  const invalid = (message = 'the scan cursor is malformed; pass the `next` of the previous page') =>
    new SluiceError('INVALID_CURSOR', message, { cursor: cursor.slice(0, 64) });
  const [own, other] =
    table.walLane === 'table'
      ? [TABLE_LANE_PREFIX, SHARD_LANE_PREFIX]
      : [SHARD_LANE_PREFIX, TABLE_LANE_PREFIX];
  if (cursor.startsWith(other)) {
    throw invalid(
      `the scan cursor is of a table whose WAL lane is not this table's (${other} where this table's are ${own}); scan again without after`,
    );
  }
  const body = cursor.startsWith(own) ? cursor.slice(own.length) : null;
  if (body === null || !/^[A-Za-z0-9_-]+$/.test(body)) throw invalid();
  const wire = table.walLane === 'table' ? TableLaneWire : ShardLaneWire;
  let parsed: z.infer<typeof ShardLaneWire> | z.infer<typeof TableLaneWire>;
  try {
    parsed = wire.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  const lane = 'l' in parsed ? parsed.l : null;
  const listings = 'l' in parsed ? [parsed.l] : parsed.s.map((s) => s.w);
  const listed = listings.reduce((sum, ranges) => sum + entriesIn(ranges), 0);
  if (parsed.s.length !== table.shards || listed > MAX_PINNED_ENTRIES) throw invalid();
  return {
    pin: {
      base: parsed.b,
      shards: parsed.s.map((s) => ({ manifest: s.m, wal: 'w' in s ? fromRanges(s.w) : [] })),
      lane: lane && fromRanges(lane),
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

function entriesIn(ranges: ReadonlyArray<readonly [number, number]>): number {
  return ranges.reduce((n, [from, to]) => n + Math.max(0, to - from + 1), 0);
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

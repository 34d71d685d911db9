/**
 * The members of a table-lane generation (docs/table-wal-lane.md, §4): the lane entries in its
 * range that hold rows of its shard, each with the byte range of that shard's section, so a
 * flush reads exactly those bytes and asks Redis nothing. Every seal and flush reads the shard
 * manifest, and a generation may have hundreds of members, so they are kept packed: unsigned
 * varints, seqs as deltas, in base64 — about 8 bytes a member, against some 40 as JSON.
 */
import { SluiceError } from '../errors.ts';

/**
 * At most this many members a generation: a shard manifest lists every sealed generation's,
 * and is read by every seal, flush and read of the shard.
 */
export const MAX_GENERATION_MEMBERS = 256;

export interface GenerationMember {
  /** The lane entry's seq. */
  seq: number;
  /** The section's bytes in the entry, `[start, end)`. */
  start: number;
  end: number;
  rows: number;
  /** The schema version the entry was encoded under: the section decodes with it. */
  schemaVersion: number;
}

/** Packs `members`, in ascending seq order and all above `after`, the seq before the generation. */
export function packMembers(after: number, members: readonly GenerationMember[]): string {
  const out: number[] = [];
  let previous = after;
  for (const member of members) {
    if (member.seq <= previous || member.end < member.start) {
      throw new RangeError(`members must ascend past ${previous}: seq ${member.seq}`);
    }
    writeVarint(out, member.seq - previous);
    writeVarint(out, member.start);
    writeVarint(out, member.end - member.start);
    writeVarint(out, member.rows);
    writeVarint(out, member.schemaVersion);
    previous = member.seq;
  }
  return Buffer.from(out).toString('base64');
}

/** The members `packMembers(after, …)` packed; a manifest that does not parse is corrupt. */
export function unpackMembers(after: number, packed: string): GenerationMember[] {
  const bytes = Buffer.from(packed, 'base64');
  const reader = { bytes, at: 0 };
  const members: GenerationMember[] = [];
  let seq = after;
  while (reader.at < bytes.length) {
    seq += readVarint(reader);
    const start = readVarint(reader);
    const end = start + readVarint(reader);
    const rows = readVarint(reader);
    const schemaVersion = readVarint(reader);
    members.push({ seq, start, end, rows, schemaVersion });
  }
  return members;
}

/** Seven bits a byte, low first; arithmetic rather than bit operators, which stop at 32 bits. */
function writeVarint(out: number[], value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a packable number: ${value}`);
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) + 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function readVarint(reader: { bytes: Uint8Array; at: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = reader.bytes[reader.at++];
    if (byte === undefined || scale > Number.MAX_SAFE_INTEGER) {
      throw new SluiceError('DATA_CORRUPT', "a generation's packed members end mid-number", {});
    }
    value += (byte % 0x80) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
}

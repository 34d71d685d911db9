/**
 * The sections of a table-lane entry as Redis keeps them (docs/table-wal-lane.md, §2
 * "Where sections are known"): a completion carries them to the allocation scripts, which
 * count each section's bytes for its shard and keep the packed value in `:sections` for the
 * seals. Packed as
 *
 *   {schemaVersion};{shard}:{start}:{end}:{rows},{shard}:{start}:{end}:{rows},…
 *
 * decimal integers, sections in shard order; `[start, end)` is the section's byte range in
 * the entry, so a seal cuts generations and a flush reads a section without the footer.
 * About 20 bytes a section. The Lua side reads it in includes/lane-sections.lua.
 */

/** One shard's rows in a table-lane entry (shared/wal/wal-sections.ts encodes them). */
export interface EntrySection {
  shard: number;
  /** First byte of the section's record batches in the entry. */
  start: number;
  /** One past the last byte. */
  end: number;
  rows: number;
}

/** What a landed entry holds: its sections and the schema version it was written under. */
export interface EntrySections {
  sections: readonly EntrySection[];
  schemaVersion: number;
}

/** A table-lane entry that landed: it leaves the in-flight marks and its sections count as unsealed. */
export interface LaneCompletion extends EntrySections {
  seq: number;
}

export function packSections(entry: EntrySections): string {
  const sections = entry.sections.map((s) => `${s.shard}:${s.start}:${s.end}:${s.rows}`);
  return `${entry.schemaVersion};${sections.join(',')}`;
}

const PACKED = /^(\d+);((?:\d+:\d+:\d+:\d+)(?:,\d+:\d+:\d+:\d+)*)?$/;

/**
 * The sections packed in `packed`, or null when it is not in this format: Redis only
 * caches the entry's footer, so the caller reads the footer rather than trust it.
 */
export function parseSections(packed: string): EntrySections | null {
  const match = PACKED.exec(packed);
  if (!match) return null;
  const sections = (match[2] ?? '')
    .split(',')
    .filter((section) => section !== '')
    .map((section) => {
      const [shard, start, end, rows] = section.split(':').map(Number) as [number, number, number, number];
      return { shard, start, end, rows };
    });
  return { sections, schemaVersion: Number(match[1]) };
}

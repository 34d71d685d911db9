/**
 * The packing of a table-lane entry's sections, which completions carry to Redis and the
 * Lua scripts parse (includes/lane-sections.lua): it must come back as it went in.
 */
import { describe, expect, it } from 'vitest';
import { type EntrySections, packSections, parseSections } from '../../../shared/redis/lane-sections.ts';

describe('lane sections packing', () => {
  it('round-trips an entry of several sections, and is the documented text', () => {
    const entry: EntrySections = {
      schemaVersion: 3,
      sections: [
        { shard: 0, start: 512, end: 4_096, rows: 10 },
        { shard: 3, start: 4_096, end: 9_000_000_000, rows: 70_000 },
        { shard: 15, start: 9_000_000_000, end: 9_000_000_001, rows: 1 },
      ],
    };
    const packed = packSections(entry);
    expect(packed).toBe('3;0:512:4096:10,3:4096:9000000000:70000,15:9000000000:9000000001:1');
    expect(parseSections(packed)).toEqual(entry);
  });

  it('round-trips a one-section entry and an entry with no section', () => {
    const one: EntrySections = { schemaVersion: 1, sections: [{ shard: 2, start: 0, end: 80, rows: 4 }] };
    expect(parseSections(packSections(one))).toEqual(one);
    const none: EntrySections = { schemaVersion: 1, sections: [] };
    expect(packSections(none)).toBe('1;');
    expect(parseSections('1;')).toEqual(none);
  });

  it('takes a value in another format for none, so the caller reads the footer', () => {
    for (const bad of ['', '3', '3;0:1:2', '3;0:1:2:3,', 'x;0:1:2:3', '3;0:1:2:3;1:2:3:4', '10']) {
      expect([bad, parseSections(bad)]).toEqual([bad, null]);
    }
  });
});

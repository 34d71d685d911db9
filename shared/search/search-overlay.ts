/**
 * Which rows a search drops (docs/design.md, "Search"): walking a snapshot's runs newest
 * first, a run's rows whose key a newer run holds are superseded, and every key any run
 * holds, deleted or not, supersedes the base's row. Computing it touches every pending key
 * (about 30 ms for 100,000 and over a second for 1,000,000), and it depends on nothing but
 * the runs, each immutable and named by its source key: so it is kept per list of runs, and
 * a search of an unchanged snapshot reuses it.
 */
import { LRUCache } from 'lru-cache';
import type { ReadSnapshot } from '../read/read-snapshot.ts';
import { hexKeysOf } from '../read/sorted-run.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';

export interface Overlay {
  /** Every key the pending runs hold (hex). */
  keys: Set<string>;
  /** Per run of the snapshot, the rows a newer run supersedes. */
  shadowedRows: Set<number>[];
}

/** Keys held across the overlays kept: about 100 bytes each. */
const MAX_KEYS = 4_000_000;

export class SearchOverlays {
  private readonly kept = new LRUCache<string, Overlay>({
    maxSize: MAX_KEYS,
    sizeCalculation: (overlay) => overlay.keys.size + 1,
  });

  of(table: TableDef, snapshot: ReadSnapshot): Overlay {
    const id = [table.name, ...snapshot.sources.map((source) => source.key)].join('\n');
    let overlay = this.kept.get(id);
    if (!overlay) {
      overlay = overlayOf(table, snapshot);
      if (overlay.keys.size < MAX_KEYS) this.kept.set(id, overlay);
    }
    return overlay;
  }
}

/** None on an append-only table, whose pending rows are all new rows. */
function overlayOf(table: TableDef, snapshot: ReadSnapshot): Overlay {
  const keys = new Set<string>();
  if (isAppendOnly(table)) return { keys, shadowedRows: snapshot.runs.map(() => new Set<number>()) };
  const shadowedRows = snapshot.runs.map((run) => {
    const shadowed = new Set<number>();
    const hex = hexKeysOf(run);
    for (let i = 0; i < run.size; i++) if (keys.has(hex[i]!)) shadowed.add(i);
    for (const key of hex) keys.add(key);
    return shadowed;
  });
  return { keys, shadowedRows };
}

/**
 * What a snapshot's pending runs hide, for a scan and a search (docs/design.md, "Read" and
 * "Search"): walking the runs newest first, a run's rows whose key a newer run holds are
 * superseded, and every key any run holds, deleted or not, supersedes the base's row; a scan
 * also pages through the overlay in key order (overlay-order.ts). Computing them touches
 * every pending key (about 30 ms for 100,000 and over a second for 1,000,000), and they
 * depend on nothing but the runs, each immutable and named by its source key: so they are
 * kept per list of runs, and every page of a scan and every search of an unchanged snapshot
 * reuses them, where a scan with 100 pending generations had rebuilt the key set on each page.
 */
import { LRUCache } from 'lru-cache';
import { overlayComputations } from '../metrics.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';
import { type OverlayOrder, overlayOrder } from './overlay-order.ts';
import type { ReadSnapshot } from './read-snapshot.ts';
import { hexKeysOf } from './sorted-run.ts';

export interface Overlay {
  /** Every key the pending runs hold (hex). */
  keys: Set<string>;
  /** Per run of the snapshot, the rows a newer run supersedes. */
  shadowedRows: Set<number>[];
}

/** Keys held across the overlays (or orders) kept: about 100 bytes each. */
const MAX_KEYS = 4_000_000;

export class SnapshotOverlays {
  private readonly overlays = keptBy<Overlay>((overlay) => overlay.keys.size);
  private readonly orders = keptBy<OverlayOrder>((order) => order.keys.length);
  of(table: TableDef, snapshot: ReadSnapshot): Overlay {
    return this.kept(this.overlays, idOf(table, snapshot), 'keys', () => overlayOf(table, snapshot));
  }

  /**
   * The snapshot's live overlay rows in key order. Which rows are live depends on the
   * retention cutoff too (an expired upsert reads as a delete), so it is kept per cutoff.
   */
  orderOf(table: TableDef, snapshot: ReadSnapshot): OverlayOrder {
    const id = `${idOf(table, snapshot)}\n@${snapshot.cutoff}`;
    return this.kept(this.orders, id, 'order', () => overlayOrder(snapshot.runs));
  }

  private kept<T extends object>(
    lru: LRUCache<string, T>,
    id: string,
    what: 'keys' | 'order',
    compute: () => T,
  ): T {
    let value = lru.get(id);
    if (value === undefined) {
      value = compute();
      overlayComputations.inc({ what });
      lru.set(id, value);
    }
    return value;
  }
}

/** The snapshot's runs, by the immutable objects they were read from. */
function idOf(table: TableDef, snapshot: ReadSnapshot): string {
  return [table.name, ...snapshot.sources.map((source) => source.key)].join('\n');
}

/** An LRU of at most `MAX_KEYS` keys; a value holding more is computed for its caller and not kept. */
function keptBy<T extends object>(keysOf: (value: T) => number): LRUCache<string, T> {
  return new LRUCache<string, T>({ maxSize: MAX_KEYS, sizeCalculation: (value) => keysOf(value) + 1 });
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

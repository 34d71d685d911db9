/**
 * Which rows of a pending run a filter passes, for a filtered scan (filtered-scan.ts). A run
 * is immutable and its table is named by its source key and schema version, so the answer
 * for a filter never changes: it is kept per run and filter, and every page of a scan (and
 * every scan of a snapshot sharing the run) reuses it, where each page had asked every
 * pending run's table again, a LanceDB query per run per page.
 */
import { LRUCache } from 'lru-cache';
import { filterRunAsks } from '../metrics.ts';

/** Row indexes kept across the answers held: about 20 bytes each in a Set. */
const MAX_ROWS = 4_000_000;

export class FilterPasses {
  private readonly kept = new LRUCache<string, Promise<Set<number>>>({
    maxSize: MAX_ROWS,
    sizeCalculation: () => 1,
  });
  /**
   * The rows of the run whose table is `runKey` that `filter` passes: asked once, then kept
   * (counted by its size once known); a failed ask is forgotten.
   */
  of(runKey: string, filter: string, ask: () => Promise<Set<number>>): Promise<Set<number>> {
    const id = `${runKey}\n${filter}`;
    const held = this.kept.get(id);
    if (held) return held;
    filterRunAsks.inc();
    const passing = ask();
    this.kept.set(id, passing);
    passing.then(
      (rows) => {
        if (this.kept.get(id) === passing) this.kept.set(id, passing, { size: rows.size + 1 });
      },
      () => {
        if (this.kept.get(id) === passing) this.kept.delete(id);
      },
    );
    return passing;
  }
}

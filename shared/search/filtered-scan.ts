/**
 * A search with a filter and neither vector nor text is a scan of the rows the filter passes,
 * paged like any scan (shared/read/scan.ts): Lance filters the base, and each pending run's
 * table in memory (pending-tables.ts) answers which of its rows pass, once per run and filter
 * (filter-passes.ts), so both sides read the filter the same way. The newest value of a key
 * decides whether the key is answered.
 */
import { createHash } from 'node:crypto';
import type { ReadSnapshot } from '../read/read-snapshot.ts';
import type { ScanFilter } from '../read/scan.ts';
import type { TableDef } from '../table/table-def.ts';
import { runSearch } from './lance-search.ts';
import { cacheKeyOf } from './pending-groups.ts';
import { ROW_COLUMN } from './pending-tables.ts';
import type { SearchDeps } from './search.ts';

export function scanFilter(deps: SearchDeps, table: TableDef, filter: string): ScanFilter {
  return {
    id: createHash('sha256').update(filter).digest('hex').slice(0, 16),
    where: filter,
    prepare: async (snapshot) => {
      const passing = await Promise.all(
        snapshot.runs.map((_, r) => passingRows(deps, table, snapshot, r, filter)),
      );
      return (r, i) => passing[r]!.has(i);
    },
  };
}

async function passingRows(
  deps: SearchDeps,
  table: TableDef,
  snapshot: ReadSnapshot,
  r: number,
  filter: string,
): Promise<Set<number>> {
  const run = snapshot.runs[r]!;
  const { key, generation } = snapshot.sources[r]!;
  const runKey = cacheKeyOf(table, key);
  return deps.filterPasses.of(runKey, filter, async () => {
    const held = await deps.pendingTables.of(runKey, [{ run, generation }], table);
    try {
      if (held.table === null) return new Set<number>();
      const request = {
        query: { kind: 'filter' as const },
        k: run.size,
        filter,
        columns: null,
        withScore: false,
        after: null,
      };
      const batches = await runSearch(held.table.handle, request, [ROW_COLUMN], run.size);
      return new Set(batches.flatMap((batch) => [...batch.getChild(ROW_COLUMN)!] as number[]));
    } finally {
      held.release();
    }
  });
}

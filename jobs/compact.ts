/** Compaction job: Lance's optimize of one table's base (see shared/lsm/optimize.ts), under the same budgets as a merge. */
import type { Sluice } from '../shared/sluice.ts';
import { tableWorkProcessor } from './table-work-job.ts';

export function compactProcessor(sluice: Sluice) {
  return tableWorkProcessor(sluice, 'compact', (table, options) => sluice.tableWork.compact(table, options));
}

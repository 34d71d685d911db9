/** Compaction job: bounds the base runs and dead rows of one table, under the same budgets as a merge. */
import type { Sluice } from '../shared/sluice.ts';
import { tableWorkProcessor } from './table-work-job.ts';

export function compactProcessor(sluice: Sluice) {
  return tableWorkProcessor(sluice, 'compact', (table, options) => sluice.compact(table, options));
}

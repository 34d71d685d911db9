/**
 * Merge job (docs/design.md, "Merge"): committed L0
 * generations of one table into its base (I11, I12, I14, I16).
 */
import type { Sluice } from '../shared/sluice.ts';
import { tableWorkProcessor } from './table-work-job.ts';

export function mergeProcessor(sluice: Sluice) {
  return tableWorkProcessor(sluice, 'merge', (table, options) => sluice.tableWork.merge(table, options));
}

/**
 * What a table has committed to L0 and not yet merged into its base, and when that is due
 * for a merge: the count trigger or the age trigger (docs/design.md, "Merge"). The sampler
 * asks of what it sampled; a merge asks of what it left behind, to start the next at once.
 */
import type { TableDef } from '../table/table-def.ts';
import type { CommittedGeneration } from './shard-manifest.ts';

export interface Backlog {
  generations: number;
  rows: number;
  /** Commit time (ms since the epoch) of the oldest generation; null when there is none. */
  oldestCommittedAt: number | null;
}

export const NO_BACKLOG: Backlog = { generations: 0, rows: 0, oldestCommittedAt: null };

export function backlogOf(generations: readonly CommittedGeneration[]): Backlog {
  return sumBacklogs(
    generations.map((g) => ({ generations: 1, rows: g.rows, oldestCommittedAt: Date.parse(g.committedAt) })),
  );
}

export function sumBacklogs(backlogs: readonly Backlog[]): Backlog {
  const times = backlogs.flatMap((b) => (b.oldestCommittedAt === null ? [] : [b.oldestCommittedAt]));
  return {
    generations: backlogs.reduce((sum, b) => sum + b.generations, 0),
    rows: backlogs.reduce((sum, b) => sum + b.rows, 0),
    oldestCommittedAt: times.length > 0 ? Math.min(...times) : null,
  };
}

/** Count trigger (0 = off, never "threshold 0") or age trigger. */
export function mergeDue(table: TableDef, backlog: Backlog, now: number): boolean {
  const { mergeAfterGenerations, mergeAfterSeconds } = table.settings;
  if (backlog.generations === 0 || backlog.oldestCommittedAt === null) return false;
  if (mergeAfterGenerations > 0 && backlog.generations >= mergeAfterGenerations) return true;
  return mergeAfterSeconds > 0 && now - backlog.oldestCommittedAt >= mergeAfterSeconds * 1000;
}

/** The scheduler's views for operators; both only read (I17). */

import type { LedgerEntry } from '../scheduler/contracts.ts';
import type { Cooldown, Page, PageOptions } from '../scheduler/failure-ledger.ts';
import type { SluiceParts } from '../sluice-parts.ts';

export class SchedulerViews {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  cooldowns(options: PageOptions): Promise<Page<Cooldown>> {
    return this.#parts.ledger.listCooldowns(options);
  }

  mergeFailures(options: PageOptions): Promise<Page<LedgerEntry>> {
    return this.#parts.ledger.listFailures('merge', options);
  }
}

/**
 * Counts the scheduler keeps for operators: cooldowns entered (I15) and merges that waited
 * in their queue past the budget (I16), per work kind. Each count goes to the process's
 * Prometheus counter (`sluice_cooldowns_total{kind}`, `sluice_queue_budget_exceeded_total{kind}`)
 * and to this instance, which tests read without the other instances of their process.
 */
import { cooldowns, queueBudgetExceeded } from '../metrics.ts';
import type { WorkKind } from './contracts.ts';

export type SchedulerCounter = 'cooldowns' | 'queueBudgetExceeded';

const METRIC = { cooldowns, queueBudgetExceeded } as const;

export class SchedulerCounters {
  private readonly counts = new Map<string, number>();

  count(name: SchedulerCounter, kind: WorkKind): void {
    METRIC[name].inc({ kind });
    this.counts.set(`${name}/${kind}`, this.value(name, kind) + 1);
  }

  value(name: SchedulerCounter, kind: WorkKind): number {
    return this.counts.get(`${name}/${kind}`) ?? 0;
  }
}

/**
 * Counts the scheduler keeps for operators: cooldowns entered (I15) and merges that waited
 * in their queue past the budget (I16), per work kind. `count` is the one line the metrics
 * work turns into `sluice_cooldowns_total{kind}` / `sluice_queue_budget_exceeded_total{kind}`.
 */
import type { WorkKind } from './contracts.ts';

export type SchedulerCounter = 'cooldowns' | 'queueBudgetExceeded';

export class SchedulerCounters {
  private readonly counts = new Map<string, number>();

  count(name: SchedulerCounter, kind: WorkKind): void {
    this.counts.set(`${name}/${kind}`, this.value(name, kind) + 1);
  }

  value(name: SchedulerCounter, kind: WorkKind): number {
    return this.counts.get(`${name}/${kind}`) ?? 0;
  }
}

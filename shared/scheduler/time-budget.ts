/**
 * I16 time budgets of one run of table work: an execution ceiling, and a no-progress limit
 * that only real progress resets — a batch read, a file written, a commit, reported through
 * `onProgress`. A BullMQ lock renewal is not progress: a worker can renew the lock of a run
 * stuck in a store call forever. Past either limit the AbortSignal handed to the work aborts,
 * which cuts its store calls short, and the run fails with TIMEOUT `{budget}` (class
 * `deadline`), whatever error the aborted call threw.
 */
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';
import type { MergeOptions, Progress } from '../lsm/merge.ts';

export type BudgetName = 'ceiling' | 'no-progress';

export interface TimeBudget {
  ceilingMs: number;
  noProgressMs: number;
}

export function mergeTimeBudget(settings: Config['scheduler']): TimeBudget {
  return {
    ceilingMs: settings.mergeCeilingSeconds * 1000,
    noProgressMs: settings.mergeNoProgressSeconds * 1000,
  };
}

export type BudgetedWork<T> = (options: Required<Pick<MergeOptions, 'signal' | 'onProgress'>>) => Promise<T>;

/** Runs `work` under `budget`; `what` names it in the error ("merge of table t"). */
export async function withTimeBudget<T>(budget: TimeBudget, what: string, work: BudgetedWork<T>): Promise<T> {
  const controller = new AbortController();
  const expire = (name: BudgetName, limitMs: number) => () => {
    const message =
      name === 'ceiling'
        ? `${what} ran past its ceiling of ${limitMs / 1000} s`
        : `${what} made no progress for ${limitMs / 1000} s`;
    controller.abort(new SluiceError('TIMEOUT', message, { budget: name, limitMs }));
  };
  const ceiling = setTimeout(expire('ceiling', budget.ceilingMs), budget.ceilingMs);
  const idle = setTimeout(expire('no-progress', budget.noProgressMs), budget.noProgressMs);
  const onProgress = (_kind: Progress) => {
    if (!controller.signal.aborted) idle.refresh();
  };
  try {
    return await work({ signal: controller.signal, onProgress });
  } catch (err) {
    if (!controller.signal.aborted) throw err;
    const reason = controller.signal.reason as SluiceError;
    throw new SluiceError(reason.code, reason.message, reason.details, { cause: err });
  } finally {
    clearTimeout(ceiling);
    clearTimeout(idle);
  }
}

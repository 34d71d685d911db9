/** Merge options that throw when the merge reaches `at`, as a process dying there would leave things. */
import type { MergeStep } from '../../shared/lsm/merge.ts';

export function dieAt(at: MergeStep) {
  return {
    onStep(step: MergeStep) {
      if (step === at) throw new Error(`died at ${step}`);
    },
  };
}

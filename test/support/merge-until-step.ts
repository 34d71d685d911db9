/**
 * A process that runs one merge of a table and stops dead at one of its steps, for the
 * kill -9 tests: `tsx merge-until-step.ts <table> <step>` with the SLUICE_* environment of
 * childEnv(). On reaching the step it logs `{"msg":"merge step","step":…}` and waits to be
 * killed. At `retention-deleted` it runs the lane's retention step instead of a merge.
 */
import { openRuntime } from '../../runtime/runtime.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import type { MergeStep } from '../../shared/lsm/merge.ts';

const [table, stop] = process.argv.slice(2);
if (!table || !stop) {
  throw new Error('usage: merge-until-step.ts <table> <prepared|lance-committed|retention-deleted>');
}

const config = loadConfig(process.env);
const log = createLogger({ level: 'info' });
const runtime = openRuntime(config, log);
const options = {
  async onStep(step: MergeStep) {
    if (step !== stop) return;
    log.info({ step }, 'merge step');
    await new Promise(() => undefined);
  },
};
if (stop === 'retention-deleted') await runtime.sluice.tableWork.retain(table, options);
else await runtime.sluice.tableWork.merge(table, options);
log.info('merge ended');
await runtime.close();

/**
 * A process that runs one merge of a table and stops dead at one of its steps, for the
 * kill -9 tests: `tsx merge-until-step.ts <table> <step>` with the SLUICE_* environment of
 * childEnv(). On reaching the step it logs `{"msg":"merge step","step":…}` and waits to be
 * killed.
 */
import { openRuntime } from '../../runtime/runtime.ts';
import { loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import type { MergeStep } from '../../shared/lsm/merge.ts';

const [table, stop] = process.argv.slice(2);
if (!table || !stop) throw new Error('usage: merge-until-step.ts <table> <prepared|lance-committed>');

const config = loadConfig(process.env);
const log = createLogger({ level: 'info' });
const runtime = openRuntime(config, log);
await runtime.sluice.tableWork.merge(table, {
  async onStep(step: MergeStep) {
    if (step !== stop) return;
    log.info({ step }, 'merge step');
    await new Promise(() => undefined);
  },
});
log.info('merge ended');
await runtime.close();

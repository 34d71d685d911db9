/**
 * An operator's "merge now" and "optimize now" (POST /v1/tables/{t}/merge, /optimize): each
 * a job in the table's merge lane. No cooldown gates them (I15): asking by hand is how an
 * operator tries again after fixing a cause. A drained table refuses them with
 * TABLE_DRAINED, since drain means no new merge or optimize starts; refusing at the request
 * tells the operator so, where a queued job would only have been skipped unseen.
 */
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import type { WorkStatus } from '../work/work-status.ts';
import type { DrainFlags } from './drain.ts';
import type { OptimizeRequests } from './optimize-requests.ts';

export interface ManualMergeDeps {
  table(name: string): Promise<TableDef>;
  drains: DrainFlags;
  scheduler: WorkScheduler;
  optimizeRequests: OptimizeRequests;
}

export type ManualWork = 'merge' | 'optimize';

export async function requestManualWork(
  deps: ManualMergeDeps,
  work: ManualWork,
  name: string,
  signal?: AbortSignal,
) {
  const table = await deps.table(name);
  if (await deps.drains.isDrained(table.name, signal)) {
    throw new SluiceError(
      'TABLE_DRAINED',
      `table ${table.name} is drained: undrain it with POST /v1/tables/${table.name}/drain {"drain":false}, then ${work}`,
      { table: table.name },
    );
  }
  if (work === 'optimize') await deps.optimizeRequests.add(table.name);
  return { table: table.name, jobId: await deps.scheduler.requestMerge(table.name, { manual: true }) };
}

/** The status of a merge-lane job of `name`; JOB_NOT_FOUND for an id that is not one (or no longer kept). */
export async function manualWorkStatus(
  deps: ManualMergeDeps,
  work: ManualWork,
  name: string,
  id: string,
): Promise<WorkStatus> {
  const table = await deps.table(name);
  const status = await deps.scheduler.workStatus(table.name, id);
  if (!status) {
    throw new SluiceError('JOB_NOT_FOUND', `no ${work} job ${id.slice(0, 100)} of table ${table.name}`, {
      table: table.name,
    });
  }
  return status;
}

/**
 * An operator's "merge now" (POST /v1/tables/{t}/merge). No cooldown gates it (I15): asking
 * by hand is how an operator tries again after fixing a cause. A drained table refuses it
 * with TABLE_DRAINED, since drain means no new merge starts; refusing at the request tells
 * the operator so, where a queued job would only have been skipped unseen.
 */
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import type { WorkStatus } from '../work/work-status.ts';
import type { DrainFlags } from './drain.ts';

export interface ManualMergeDeps {
  table(name: string): Promise<TableDef>;
  drains: DrainFlags;
  scheduler: WorkScheduler;
}

export async function requestManualMerge(deps: ManualMergeDeps, name: string, signal?: AbortSignal) {
  const table = await deps.table(name);
  if (await deps.drains.isDrained(table.name, signal)) {
    throw new SluiceError(
      'TABLE_DRAINED',
      `table ${table.name} is drained: undrain it with POST /v1/tables/${table.name}/drain {"drain":false}, then merge`,
      {
        table: table.name,
      },
    );
  }
  return { table: table.name, jobId: await deps.scheduler.requestMerge(table.name, { manual: true }) };
}

/** The status of a merge job of `name`; JOB_NOT_FOUND for an id that is not one (or no longer kept). */
export async function manualMergeStatus(
  deps: ManualMergeDeps,
  name: string,
  id: string,
): Promise<WorkStatus> {
  const table = await deps.table(name);
  const status = await deps.scheduler.workStatus('merge', table.name, id);
  if (!status) {
    throw new SluiceError('JOB_NOT_FOUND', `no merge job ${id.slice(0, 100)} of table ${table.name}`, {
      table: table.name,
    });
  }
  return status;
}

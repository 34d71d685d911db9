/**
 * The shards of a table: stats, seal, flush, the fail-stop and reopen, reconcile, and the flush
 * requests of the fail-stop's budget and of an operator's retry.
 */
import { SluiceError } from '../errors.ts';
import { type FlushFailure, failStop, failStopOutside } from '../lsm/fail-stop.ts';
import { type FlushOptions, flushShard } from '../lsm/flush.ts';
import { retryFailedFlush } from '../lsm/flush-retry.ts';
import { reopen } from '../lsm/poison.ts';
import { reconcileTable, type ShardReconcile } from '../lsm/reconcile.ts';
import { type SealOutcome, sealShard } from '../lsm/seal.ts';
import type { ShardManifest } from '../lsm/shard-manifest.ts';
import { flushDuration, sealDuration, timed } from '../metrics.ts';
import { type ShardStats, shardStats } from '../read/shard-stats.ts';
import type { SluiceParts } from '../sluice-parts.ts';
import type { TableDef } from '../table/table-def.ts';
import type { FlushRetry } from '../work/work-scheduler.ts';

export class Shards {
  readonly #parts: SluiceParts;

  constructor(parts: SluiceParts) {
    this.#parts = parts;
  }

  async stats(tableName: string, shard: number): Promise<ShardStats> {
    const table = await this.#parts.table(tableName);
    return shardStats(this.#parts, table, checkShard(table, shard));
  }

  seal(tableName: string, shard: number, signal?: AbortSignal): Promise<SealOutcome> {
    return timed(sealDuration, () =>
      this.#parts.withFreshSchema(tableName, async (table) => {
        const outcome = await sealShard(this.#parts, table, checkShard(table, shard), signal);
        if (outcome.sealed.length > 0) await this.#parts.samplerIndex.markDirty(table.name, [shard]);
        return outcome;
      }),
    );
  }

  flush(tableName: string, shard: number, options?: FlushOptions): Promise<number[]> {
    return timed(flushDuration, () =>
      this.#parts.withFreshSchema(tableName, async (table) => {
        const committed = await flushShard(this.#parts, table, checkShard(table, shard), options);
        if (committed.length > 0) await this.#parts.samplerIndex.markDirty(table.name, [shard]);
        return committed;
      }),
    );
  }

  /** Asks for a flush of the shard; `retry` continues a failed generation's budget (I6). */
  requestFlush(tableName: string, shard: number, retry?: FlushRetry): Promise<void> {
    return this.#parts.scheduler.requestFlush(tableName, shard, retry);
  }

  /** I6/I7 after the flush of `generation` failed for good; see lsm/fail-stop.ts. */
  failStop(
    tableName: string,
    shard: number,
    failure: FlushFailure & { generation: number | null },
    record: () => Promise<void>,
  ): Promise<boolean> {
    return failStop(this.#parts, { table: tableName, shard }, failure, record);
  }

  /** The fail-stop of a flush that failed outside its processor; see lsm/fail-stop.ts. */
  failStopOutside(
    tableName: string,
    shard: number,
    failure: FlushFailure,
    record: () => Promise<void>,
  ): Promise<boolean> {
    return failStopOutside(this.#parts, { table: tableName, shard }, failure, record);
  }

  /** An operator's retry of a fail-stopped flush, refused while the shard is poisoned. */
  retryFailedFlush(tableName: string, shard: number, letter: string): Promise<void> {
    return retryFailedFlush(this.#parts, { table: tableName, shard }, letter);
  }

  async reopen(tableName: string, shard: number): Promise<ShardManifest> {
    const table = await this.#parts.table(tableName);
    return reopen(this.#parts, { table: table.name, shard: checkShard(table, shard) });
  }

  /** Re-creates lost work for every shard of `tableName`, or of every table. */
  async reconcile(tableName?: string): Promise<ShardReconcile[]> {
    const tables = tableName ? [await this.#parts.table(tableName)] : await this.#parts.catalog.listAll();
    const outcomes: ShardReconcile[] = [];
    for (const table of tables) outcomes.push(...(await reconcileTable(this.#parts, table)));
    return outcomes;
  }

  /** Shards whose poison is cached, for the gauges and the EMF counts. */
  poisonedCount(): Promise<number> {
    return this.#parts.poisonCache.poisonedCount();
  }
}

function checkShard(table: TableDef, shard: number): number {
  if (!Number.isInteger(shard) || shard < 0 || shard >= table.shards) {
    throw new SluiceError('SHARD_NOT_FOUND', `table ${table.name} has no shard ${shard}`, {
      table: table.name,
      shard,
      shards: table.shards,
    });
  }
  return shard;
}

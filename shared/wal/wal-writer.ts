/**
 * Writes WAL entries for one process. I1: a write resolves only after its entry is durable
 * in the store. With group commit on, writes to one shard that arrive within
 * `groupCommitMs` share one entry, one seq and one put — fewer PUTs under load, the same
 * ack rule: every caller of a group is acked when that put lands, or gets its error.
 */
import type { RecordBatch } from 'apache-arrow';
import { type Config, seqFloorTtlMs } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { poisonedError } from '../lsm/manifest-transitions.ts';
import type { ShardManifestStore } from '../lsm/shard-manifest.ts';
import { outcomeOf, walEntryRows, walEntryWrites, walPuts } from '../metrics.ts';
import type { SealWatch } from '../redis/seal-watch.ts';
import type { ShardState } from '../redis/shard-state.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { walKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import { syncShard } from './shard-sync.ts';
import { decodeWalEntry, encodeWalEntry } from './wal-entry.ts';

export interface WalWriterDeps {
  config: Config;
  store: ObjectStore;
  manifests: ShardManifestStore;
  shardState: ShardState;
  sealWatch: SealWatch;
  scheduler: WorkScheduler;
  log: Logger;
}

interface Waiter {
  resolve(seq: number): void;
  reject(err: unknown): void;
}

interface Group {
  table: TableDef;
  shard: number;
  batches: RecordBatch[];
  rows: number;
  bytes: number;
  waiters: Waiter[];
  timer: NodeJS.Timeout | null;
}

/** Seq collisions happen only right after Redis lost its counter; a few fresh seqs settle them. */
const MAX_SEQ_ATTEMPTS = 5;
const BACKPRESSURE_RETRY_AFTER_SECONDS = 1;

export class WalWriter {
  private readonly groups = new Map<string, Group>();
  private readonly floors = new Map<string, { value: number; at: number }>();
  /** Per shard, the time this process last set its seal-watch mark due at. */
  private readonly watchedUntil = new Map<string, number>();
  /** Counts of Redis round trips, for the write benchmark. */
  redisRoundTrips = 0;

  constructor(private readonly deps: WalWriterDeps) {}

  /** Appends `batch` (WAL schema) to the shard's WAL; resolves with the seq of the durable entry. */
  write(table: TableDef, shard: number, batch: RecordBatch): Promise<number> {
    const { groupCommitMs } = this.deps.config.wal;
    if (groupCommitMs === 0) return this.writeEntry(table, shard, [batch]);
    return new Promise<number>((resolve, reject) => {
      const group = this.groupFor(table, shard);
      group.batches.push(batch);
      group.rows += batch.numRows;
      group.bytes += batch.data.byteLength;
      group.waiters.push({ resolve, reject });
      const { groupCommitMaxBytes, groupCommitMaxRows } = this.deps.config.wal;
      if (group.bytes >= groupCommitMaxBytes || group.rows >= groupCommitMaxRows) this.release(group);
    });
  }

  /** Writes every open group now; used at shutdown so no caller waits on a timer. */
  flushGroups(): void {
    for (const group of [...this.groups.values()]) this.release(group);
  }

  private groupFor(table: TableDef, shard: number): Group {
    const id = `${table.name}/${shard}`;
    const open = this.groups.get(id);
    if (open) return open;
    const group: Group = { table, shard, batches: [], rows: 0, bytes: 0, waiters: [], timer: null };
    group.timer = setTimeout(() => this.release(group), this.deps.config.wal.groupCommitMs);
    this.groups.set(id, group);
    return group;
  }

  private release(group: Group): void {
    const id = `${group.table.name}/${group.shard}`;
    if (this.groups.get(id) !== group) return;
    this.groups.delete(id);
    if (group.timer) clearTimeout(group.timer);
    this.writeEntry(group.table, group.shard, group.batches).then(
      (seq) => {
        for (const waiter of group.waiters) waiter.resolve(seq);
      },
      (err: unknown) => {
        for (const waiter of group.waiters) waiter.reject(err);
      },
    );
  }

  private async writeEntry(table: TableDef, shard: number, batches: RecordBatch[]): Promise<number> {
    const body = encodeWalEntry(batches);
    const rows = batches.reduce((sum, b) => sum + b.numRows, 0);
    for (let attempt = 0; attempt < MAX_SEQ_ATTEMPTS; attempt++) {
      const { seq, floorAt } = await this.allocate(table, shard);
      await this.watchSeal(table.name, shard);
      if (await this.putEntry(table, shard, seq, body)) {
        if (await this.landedBelowSealed(table.name, shard, seq, floorAt)) continue;
        // Every write brings one batch, so the batches are the writes the entry acks.
        walEntryWrites.observe(batches.length);
        walEntryRows.observe(rows);
        await this.afterDurable(table, shard, seq, rows, body.byteLength);
        return seq;
      }
    }
    throw new SluiceError('STORE_CONFLICT', 'could not find a free WAL seq', { table: table.name, shard });
  }

  /** A seq above the floor, and when that floor was read from the manifest. */
  private async allocate(table: TableDef, shard: number): Promise<{ seq: number; floorAt: number }> {
    const { limits } = this.deps.config;
    for (let attempt = 0; attempt < 3; attempt++) {
      this.redisRoundTrips++;
      const floor = await this.seqFloor(table.name, shard);
      const allocation = await this.deps.shardState.allocate(table.name, shard, limits, floor.value);
      switch (allocation.kind) {
        case 'ok':
          return { seq: allocation.seq, floorAt: floor.at };
        case 'poisoned':
          throw poisonedError(table.name, shard, allocation.poison);
        case 'backpressure':
          throw new SluiceError(
            'BACKPRESSURE',
            `shard ${shard} of table ${table.name} is behind; retry later`,
            {
              table: table.name,
              shard,
              reason: allocation.reason === 'bytes' ? 'unsealed bytes' : 'unflushed generations',
              value: allocation.value,
              retryAfterSeconds: BACKPRESSURE_RETRY_AFTER_SECONDS,
            },
          );
        case 'uninitialized':
          await syncShard(this.deps, table.name, shard);
          this.floors.delete(`${table.name}/${shard}`);
          // Redis lost the shard's state, and with it this process's seal-watch mark.
          this.watchedUntil.delete(`${table.name}/${shard}`);
      }
    }
    throw new SluiceError('REDIS_UNAVAILABLE', 'shard state could not be initialized', {
      table: table.name,
      shard,
    });
  }

  /**
   * The highest seq this shard has sealed, re-read from the manifest once it is older than
   * `seqFloorTtlMs`: the floor below which Redis must never hand out a seq (see
   * ShardState.allocate).
   */
  private async seqFloor(table: string, shard: number): Promise<{ value: number; at: number }> {
    const id = `${table}/${shard}`;
    const known = this.floors.get(id);
    if (known && Date.now() - known.at < seqFloorTtlMs(this.deps.config)) return known;
    return this.readFloor(table, shard);
  }

  private async readFloor(table: string, shard: number): Promise<{ value: number; at: number }> {
    const at = Date.now();
    const { sealedThrough } = await this.deps.manifests.read(table, shard);
    const floor = { value: sealedThrough, at };
    this.floors.set(`${table}/${shard}`, floor);
    return floor;
  }

  /**
   * I2: a seq at or below the sealed range is never acked, since no seal or read looks there.
   * GC deletes a sealed range only a grace period after its seal, so an entry that landed
   * within the grace of its floor's reading cannot have re-created a deleted seq; a put that
   * took longer is checked against the manifest again, and a seq it finds sealed is given up.
   */
  private async landedBelowSealed(table: string, shard: number, seq: number, floorAt: number) {
    if (Date.now() - floorAt < this.deps.config.scheduler.gcGraceSeconds * 1000) return false;
    const floor = await this.readFloor(table, shard);
    if (seq > floor.value) return false;
    this.deps.log.warn(
      { table, shard, seq, sealedThrough: floor.value },
      'WAL entry landed in the sealed range; retrying above it',
    );
    await this.deps.shardState.abandon(table, shard, seq).catch(() => undefined);
    return true;
  }

  /**
   * Makes sure the sampler looks at this shard once this put has ended, should its seal
   * request never come (see `recoverLostSeals`). The mark only ever moves later, and the
   * sampler takes it once due, so while this process's last mark is at least half the
   * watch away — longer than any put may take — it still covers this put: one Redis call
   * per shard per half watch, not per write.
   */
  private async watchSeal(table: string, shard: number): Promise<void> {
    const id = `${table}/${shard}`;
    const watchMs = this.deps.config.scheduler.lostSealSeconds * 1000;
    const now = Date.now();
    if ((this.watchedUntil.get(id) ?? 0) - now >= watchMs / 2) return;
    this.redisRoundTrips++;
    await this.deps.sealWatch.watch(table, shard, now + watchMs);
    this.watchedUntil.set(id, now + watchMs);
  }

  /** True when the entry landed; false when the seq was taken by a real entry (try another). */
  private async putEntry(table: TableDef, shard: number, seq: number, body: Uint8Array): Promise<boolean> {
    const key = walKey(table.name, shard, seq);
    try {
      await this.deps.store.putIfAbsent(key, body, {
        signal: AbortSignal.timeout(this.deps.config.wal.putTimeoutMs),
      });
      walPuts.inc({ outcome: 'ok' });
      return true;
    } catch (err) {
      walPuts.inc({ outcome: outcomeOf(err) });
      if (!isSluiceError(err, 'PRECONDITION_FAILED')) {
        await this.sealAfterUnknownPut(table, shard, seq, err);
        await this.deps.shardState.abandon(table.name, shard, seq).catch(() => undefined);
        throw err;
      }
    }
    const existing = await this.deps.store.get(key);
    if (existing && decodeWalEntry(existing.body, seq).kind === 'hole') {
      throw new SluiceError('WRITE_ABANDONED', 'the write took too long and was abandoned; retry it', {
        table: table.name,
        shard,
        seq,
      });
    }
    return false;
  }

  /**
   * A put that failed may still have landed (its answer was lost): the entry is then durable
   * and unacked, and waits for a seal like any other. The seal request is asked for as after
   * a landed put; should it fail too, the seal watch still finds the seq unsealed.
   */
  private async sealAfterUnknownPut(table: TableDef, shard: number, seq: number, err: unknown) {
    try {
      await this.deps.scheduler.requestSeal(table.name, shard, { delayMs: table.settings.sealDelayMs });
    } catch (failure) {
      this.deps.log.warn(
        { err: failure, putError: err, table: table.name, shard, seq },
        'WAL put failed and sealing not yet requested',
      );
    }
  }

  /** Bookkeeping after the ack point: a failure here delays sealing, it never un-acks a write. */
  private async afterDurable(table: TableDef, shard: number, seq: number, rows: number, bytes: number) {
    try {
      this.redisRoundTrips += 2;
      const unsealed = await this.deps.shardState.complete(table.name, shard, seq, rows, bytes);
      const delayMs = unsealed >= table.settings.maxGenerationBytes ? 0 : table.settings.sealDelayMs;
      await this.deps.scheduler.requestSeal(table.name, shard, { delayMs });
    } catch (err) {
      this.deps.log.warn(
        { err, table: table.name, shard, seq },
        'WAL entry durable, but sealing not yet requested',
      );
    }
  }
}

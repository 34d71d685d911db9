/**
 * Writes WAL entries for one process. I1: a write resolves only after its entry is durable
 * in the store. With group commit on, the writes to one shard that arrive while its puts
 * are busy share the next entry, one seq and one put; a write to an idle shard starts its
 * put at once, so no write ever waits for a window. Several puts of one shard may be in
 * flight (`maxPutsInFlight`): a waiting group gets a put of its own when waiting for the
 * running one would cost its writers more than `pipelineWaitMs` (`PutPipeline`), so many
 * writers keep a slow store busy instead of queueing behind one put, while on a fast store
 * a put still carries everything that arrived meanwhile. Every caller of a group is acked
 * when its put lands, or gets its error.
 *
 * One Redis round trip is on the ack path: the allocation, which also carries the
 * completions of the shard's earlier entries and tells whether this write is the first
 * since the last seal ended with nothing left to seal (it "armed" the seal). Only that
 * writer requests a seal, after its ack; the others know one is coming, from it or from
 * the seal before (docs/design.md, "Seal"). Completions that no allocation picks up are
 * sent on their own once the shard has been quiet for a moment, before the seal needs them.
 * An idempotent write to an append-only table adds one more before its put: it notes where
 * it is about to land (`WalWrite.beforePut`), so that a retry can settle it (I20).
 */
import { randomUUID } from 'node:crypto';
import { type Config, seqFloorRefreshMs, seqFloorTtlMs } from '../config.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import {
  outcomeOf,
  walAckPhase,
  walEntryRows,
  walEntryWrites,
  walPuts,
  walRedisRoundTrips,
} from '../metrics.ts';
import type { LaneAllocation } from '../redis/lane-allocation.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { SealWatch } from '../redis/seal-watch.ts';
import type { SeqAllocation } from '../redis/seq-allocation.ts';
import { withDeadline } from '../store/abort.ts';
import type { ObjectStore, StagedObject } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { notFound, type TableDrops } from '../table/table-drops.ts';
import type { WorkScheduler } from '../work/work-scheduler.ts';
import {
  type LaneAllocated,
  type LaneCoordination,
  type LaneWrite,
  shardCoordination,
} from './lane-coordination.ts';
import type { ManifestReader } from './manifest-reader.ts';
import { PutPipeline } from './put-pipeline.ts';
import { decideSeq } from './seq-decision.ts';
import { tableCoordination } from './table-coordination.ts';
import { UrgentSeals } from './urgent-seals.ts';
import { decodeWalEntry, type NotedPut, type WalWrite, writeRows } from './wal-entry.ts';
import { type WriteGroup, WriteGroups } from './write-group.ts';

export interface WalWriterDeps {
  config: Config;
  store: ObjectStore;
  manifests: ManifestReader;
  seqAllocation: SeqAllocation;
  laneAllocation: LaneAllocation;
  laneSealCounters: LaneSealCounters;
  sealWatch: SealWatch;
  drops: TableDrops;
  scheduler: WorkScheduler;
  log: Logger;
}

/** What this process knows and owes about one WAL lane: a shard's own, or a table's. */
interface Lane {
  /** Its key among this process's lanes: `{table}/{shard}`, or `{table}/wal` for a table lane. */
  id: string;
  table: TableDef;
  coordination: LaneCoordination<unknown>;
  groups: WriteGroups;
  pumpQueued: boolean;
  pipeline: PutPipeline;
  /** Asks the pipeline again about the oldest waiting group. */
  pipelineTimer: NodeJS.Timeout | null;
  /** Entries that landed and are not yet counted in Redis. */
  completions: unknown[];
  /** Shards whose seal this process must request. */
  sealWanted: Set<number>;
  /** The running background run, if any; `again` asks it for one more pass. */
  background: Promise<void> | null;
  again: boolean;
  /** Sends the completions if no allocation took them first. */
  idleTimer: NodeJS.Timeout | null;
}

/** Seq collisions happen only right after Redis lost its counter; a few fresh seqs settle them. */
const MAX_SEQ_ATTEMPTS = 5;
/**
 * Collisions after which the writer syncs the lane rather than try on: a floor re-read after the
 * first skips the sealed range of the shard it reads, but a table lane's may lie far below its
 * tail (docs/table-wal-lane.md, "Floor"), and each occupied seq above it would cost a try.
 */
const COLLISIONS_BEFORE_SYNC = 2;
/**
 * Completions wait at most this long (and at most half the seal delay, so the seal finds
 * the row counts) for an allocation to carry them; then they are sent on their own.
 */
const IDLE_COMPLETE_MS = 100;

/** The shards some of a group's writes were refused for, and the error each one's writers get. */
class LaneRefusal extends Error {
  constructor(readonly errors: ReadonlyMap<number, unknown>) {
    super('some shards refused the write');
  }
}

export class WalWriter {
  private readonly lanes = new Map<string, Lane>();
  private readonly floors = new Map<string, { value: number; at: number }>();
  /** Shards whose floor is being read again behind the writes (`servedFloor`). */
  private readonly refreshing = new Set<string>();
  /** Per shard, the time this process last set its seal-watch mark due at. */
  private readonly watchedUntil = new Map<string, number>();
  private readonly urgentSeals = new UrgentSeals();

  constructor(private readonly deps: WalWriterDeps) {}

  /** Appends `write` to the shard's WAL; resolves with the seq of the durable entry. */
  write(table: TableDef, shard: number, write: WalWrite): Promise<number> {
    const lane = this.laneFor(table, `${table.name}/${shard}`, () =>
      shardCoordination(this.deps, table.name, shard),
    );
    return this.enqueue(lane, new Map([[shard, write]]));
  }

  /**
   * Appends a request's writes of every shard it touches to its table's lane, as one entry at
   * one seq (docs/table-wal-lane.md, §3); resolves with that seq once the entry is durable.
   */
  writeToTable(table: TableDef, write: LaneWrite): Promise<number> {
    const lane = this.laneFor(table, `${table.name}/wal`, () => tableCoordination(this.deps, table));
    return this.enqueue(lane, write);
  }

  /** Resolves once the bookkeeping of every landed entry has run (at shutdown). */
  async settle(): Promise<void> {
    for (;;) {
      for (const lane of this.lanes.values()) {
        if (lane.idleTimer && lane.completions.length > 0) this.runBackground(lane);
      }
      const busy = [...this.lanes.values()].flatMap((lane) => (lane.background ? [lane.background] : []));
      if (busy.length === 0) return;
      await Promise.all(busy);
    }
  }

  private enqueue(lane: Lane, write: LaneWrite): Promise<number> {
    if (!this.deps.config.wal.groupCommit) return this.writeAlone(lane, write);
    return new Promise<number>((resolve, reject) => {
      lane.groups.add(write, { resolve, reject, joinedAt: performance.now() });
      // A microtask, not a timer: writes made in one synchronous burst share an entry, and
      // nothing waits on the clock.
      if (!lane.pumpQueued) {
        lane.pumpQueued = true;
        queueMicrotask(() => this.pump(lane));
      }
    });
  }

  /** The lane `id`, its coordination made only when this process has no lane of that id yet. */
  private laneFor(table: TableDef, id: string, coordinate: () => LaneCoordination<unknown>): Lane {
    const known = this.lanes.get(id);
    if (known) {
      // A write still holding the definition from before a change of the columns does not
      // take the lane back to it: its rows are valid under the newer one (schema-change.ts).
      if (table.schema.version >= known.table.schema.version) known.table = table;
      return known;
    }
    const { groupCommitMaxBytes, groupCommitMaxRows, maxPutsInFlight, pipelineMinBytes, pipelineWaitMs } =
      this.deps.config.wal;
    const lane: Lane = {
      id,
      table,
      coordination: coordinate(),
      groups: new WriteGroups({ maxBytes: groupCommitMaxBytes, maxRows: groupCommitMaxRows }),
      pumpQueued: false,
      pipeline: new PutPipeline({ maxPutsInFlight, pipelineMinBytes, pipelineWaitMs }),
      pipelineTimer: null,
      completions: [],
      sealWanted: new Set(),
      background: null,
      again: false,
      idleTimer: null,
    };
    this.lanes.set(id, lane);
    return lane;
  }

  /** Without group commit: one entry per write, its put counted in flight as a group's is. */
  private async writeAlone(lane: Lane, write: LaneWrite): Promise<number> {
    const put = lane.pipeline.begin(performance.now());
    const timing = new EntryTiming();
    try {
      const seq = await this.writeEntry(lane, [write], timing);
      timing.observe(1);
      return seq;
    } catch (err) {
      throw err instanceof LaneRefusal ? [...err.errors.values()][0] : err;
    } finally {
      lane.pipeline.end(put, performance.now());
      this.forgetIfIdle(lane);
    }
  }

  /** Starts a put for each waiting group the pipeline lets go (`PutPipeline`). */
  private pump(lane: Lane): void {
    lane.pumpQueued = false;
    if (lane.pipelineTimer) clearTimeout(lane.pipelineTimer);
    lane.pipelineTimer = null;
    const now = performance.now();
    for (let head = lane.groups.head; head; head = lane.groups.head) {
      const decision = lane.pipeline.decide(head, lane.groups.length, now);
      if (decision.kind === 'askAgain') {
        lane.pipelineTimer = setTimeout(() => this.pump(lane), decision.ms);
      }
      if (decision.kind !== 'start') return;
      lane.groups.take();
      for (const waiter of head.waiters)
        walAckPhase.observe({ phase: 'group' }, (now - waiter.joinedAt) / 1000);
      const put = lane.pipeline.begin(now);
      this.commitGroup(lane, head).finally(() => {
        lane.pipeline.end(put, performance.now());
        this.pump(lane);
        this.forgetIfIdle(lane);
      });
    }
  }

  /**
   * One entry for the group's writes. Writes to a shard the allocation refused get that
   * shard's error, and the others go in an entry of their own: in a table lane a write is
   * all or nothing across its shards, so none of its rows may land beside a refused shard's.
   */
  private async commitGroup(lane: Lane, group: WriteGroup): Promise<void> {
    let { writes, waiters } = group;
    while (writes.length > 0) {
      const timing = new EntryTiming();
      try {
        const seq = await this.writeEntry(lane, writes, timing);
        timing.observe(waiters.length);
        for (const waiter of waiters) waiter.resolve(seq);
        return;
      } catch (err) {
        if (!(err instanceof LaneRefusal)) {
          for (const waiter of waiters) waiter.reject(err);
          return;
        }
        const kept = writes.map((write) => refusalOf(write, err.errors));
        kept.forEach((error, i) => {
          if (error !== undefined) waiters[i]!.reject(error);
        });
        waiters = waiters.filter((_, i) => kept[i] === undefined);
        writes = writes.filter((_, i) => kept[i] === undefined);
      }
    }
  }

  private async writeEntry(lane: Lane, writes: LaneWrite[], timing: EntryTiming): Promise<number> {
    const { table, coordination } = lane;
    const shards = shardsOf(writes);
    // The allocation is on the wire before the entry is encoded: the encoding, and where the
    // store can the bytes' way to the disk, run while Redis answers. Should anything below
    // throw before the put, the allocated seq becomes a hole like any put that never lands.
    const firstAllocation = this.allocate(lane, shards);
    firstAllocation.catch(() => undefined);
    const entryId = randomUUID();
    const entry = coordination.encode(table.schema, writes, entryId);
    const { body } = entry;
    const staging = this.deps.store.stage?.(body) ?? null;
    staging?.catch(() => undefined);
    let collisions = 0;
    try {
      for (let attempt = 0; attempt < MAX_SEQ_ATTEMPTS; attempt++) {
        const { seq, floorAt } = await (attempt === 0 ? firstAllocation : this.allocate(lane, shards));
        await Promise.all(shards.map((shard) => this.watchSeal(table.name, shard)));
        await notePut(writes, { shard: shards[0]!, seq, entry: entryId });
        let put: PutOutcome;
        timing.putStartedAt = performance.now();
        try {
          put = await this.putEntry(lane, shards, seq, { body, entry: entryId }, staging);
          timing.putEndedAt = performance.now();
        } finally {
          if (lane.sealWanted.size > 0) this.runBackground(lane);
        }
        if (put === 'collided' && ++collisions === COLLISIONS_BEFORE_SYNC) {
          // The counter is raised above every seq in the lane: one LIST, not a try per seq.
          await coordination.sync();
        }
        if (put === 'landed') {
          if (await this.landedBelowSealed(lane, shards, seq, floorAt)) continue;
          walEntryWrites.observe(writes.length);
          walEntryRows.observe(entry.rows);
          lane.completions.push(entry.completion(seq));
          const urgent = shards.filter((shard) => this.urgentSeals.isDue(table.name, shard));
          if (urgent.length > 0) {
            for (const shard of urgent) lane.sealWanted.add(shard);
            this.runBackground(lane);
          } else {
            this.completeWhenIdle(lane);
          }
          return seq;
        }
      }
    } finally {
      // After the ack: the published entry is a link of its own.
      staging?.then(
        (staged) => staged.discard(),
        () => undefined,
      );
    }
    throw new SluiceError('STORE_CONFLICT', 'could not find a free WAL seq', {
      table: table.name,
      ...shardDetails(shards),
    });
  }

  /** A seq above the floor, and when that floor was read from the manifest. */
  private async allocate(lane: Lane, shards: readonly number[]): Promise<{ seq: number; floorAt: number }> {
    const { table, coordination } = lane;
    const { limits } = this.deps.config;
    const floorShard = coordination.floorShard(shards);
    // Enough for a Redis that lost everything: the lane's state, then its drop flag, then the seq.
    for (let attempt = 0; attempt < 4; attempt++) {
      // A floor held is taken without an await, so the allocation leaves at once.
      const floor =
        this.servedFloor(table.name, floorShard) ?? (await this.readFloor(table.name, floorShard));
      const completions = lane.completions.splice(0);
      let allocation: LaneAllocated;
      try {
        allocation = await coordination.allocate(shards, limits, floor.value, {
          completions,
          sealDelayMs: table.settings.sealDelayMs,
        });
      } catch (err) {
        lane.completions.unshift(...completions);
        throw err;
      } finally {
        walRedisRoundTrips.inc({ step: 'allocate' });
      }
      this.urgentSeals.note(table.name, table.settings.maxGenerationBytes, allocation.unsealedBytes);
      for (const shard of allocation.armed) lane.sealWanted.add(shard);
      // Completions count whatever the answer: seals they armed are asked for without a put.
      if (allocation.kind !== 'ok' && allocation.armed.length > 0) this.runBackground(lane);
      switch (allocation.kind) {
        case 'ok':
          return { seq: allocation.seq, floorAt: floor.at };
        case 'refused':
          throw new LaneRefusal(allocation.errors);
        case 'dropped':
          throw notFound(table.name);
        case 'dropUnknown':
          await coordination.fillDropFlag();
          break;
        case 'uninitialized':
          await coordination.sync();
          this.floors.delete(shardId(table.name, floorShard));
          // Redis lost the lane's state, and with it this process's seal-watch marks.
          for (const shard of shards) this.watchedUntil.delete(shardId(table.name, shard));
      }
    }
    throw new SluiceError('REDIS_UNAVAILABLE', 'WAL lane state could not be initialized', {
      table: table.name,
      lane: lane.id,
    });
  }
  /**
   * The highest seq this shard has sealed as last read from the manifest: the floor below
   * which Redis must never hand out a seq (see SeqAllocation.allocate). Null when this process
   * has none younger than `seqFloorTtlMs`; past `seqFloorRefreshMs` it is still served and read
   * again behind the write, so only a shard this process has not written for the TTL reads
   * its manifest on the ack path — on S3 a walk over every manifest version committed since,
   * which held acks for a quarter of a second (docs/design.md, "The seq floor").
   */
  private servedFloor(table: string, shard: number): { value: number; at: number } | null {
    const known = this.floors.get(shardId(table, shard));
    const age = known ? Date.now() - known.at : Number.POSITIVE_INFINITY;
    if (!known || age >= seqFloorTtlMs(this.deps.config)) return null;
    if (age >= seqFloorRefreshMs(this.deps.config)) this.refreshFloor(table, shard);
    return known;
  }

  private refreshFloor(table: string, shard: number): void {
    const id = shardId(table, shard);
    if (this.refreshing.has(id)) return;
    this.refreshing.add(id);
    this.readFloor(table, shard)
      .catch((err: unknown) => this.deps.log.debug({ err, table, shard }, 'seq floor refresh failed'))
      .finally(() => this.refreshing.delete(id));
  }

  /** The shard's floor as its manifest gives it now, kept for the writes after; and its cursor. */
  private async readFloor(
    table: string,
    shard: number,
  ): Promise<{ value: number; at: number; walCursor: number }> {
    const at = Date.now();
    const { sealedThrough, walCursor } = await this.deps.manifests.read(table, shard);
    const floor = { value: sealedThrough, at };
    // A reading that began earlier than the one kept never replaces it.
    const kept = this.floors.get(shardId(table, shard));
    if (!kept || kept.at <= at) this.floors.set(shardId(table, shard), floor);
    return { ...floor, walCursor };
  }

  /**
   * I2: a write is acked only at a seq that a seal took or will take. GC deletes a sealed range
   * only a grace period after its seal, so an entry that landed within the grace of its floor's
   * reading cannot have re-created a deleted seq; a put that took longer is checked against the
   * manifest again. Inside the sealed range its seq is kept while the shard's cursor is below
   * it (no object at that seq was ever deleted, so the seal passed it over this entry) and
   * given up past the cursor, where the entry may have re-created a deleted hole
   * (docs/design.md, "The seq floor"). In a table lane any one shard's manifest will do: GC
   * deletes a lane seq only once every shard's cursor passed it, and no seal passes a seq
   * while its key is free.
   */
  private async landedBelowSealed(lane: Lane, shards: readonly number[], seq: number, floorAt: number) {
    if (Date.now() - floorAt < this.deps.config.scheduler.gcGraceSeconds * 1000) return false;
    const table = lane.table.name;
    const shard = lane.coordination.floorShard(shards);
    const floor = await this.readFloor(table, shard);
    if (seq > floor.value || seq > floor.walCursor) return false;
    this.deps.log.warn(
      { table, shard, seq, sealedThrough: floor.value },
      'WAL entry landed in the sealed range; retrying above it',
    );
    await lane.coordination.abandon(seq).catch(() => undefined);
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
    const id = shardId(table, shard);
    const watchMs = this.deps.config.scheduler.lostSealSeconds * 1000;
    const now = Date.now();
    if ((this.watchedUntil.get(id) ?? 0) - now >= watchMs / 2) return;
    walRedisRoundTrips.inc({ step: 'watch' });
    await this.deps.sealWatch.watch(table, shard, now + watchMs);
    this.watchedUntil.set(id, now + watchMs);
  }

  /**
   * 'landed' when the entry landed; 'collided' when the seq was taken by a real entry, and
   * 'tombstoned' when this writer's own tombstone took it (either way, try another).
   */
  private async putEntry(
    lane: Lane,
    shards: readonly number[],
    seq: number,
    { body, entry }: { body: Uint8Array; entry: string },
    staging: Promise<StagedObject> | null,
  ): Promise<PutOutcome> {
    const { table, coordination } = lane;
    const key = coordination.key(seq);
    try {
      await withDeadline(this.deps.config.wal.putTimeoutMs, async (signal) => {
        if (staging) await (await staging).putIfAbsent(key, { signal });
        else await this.deps.store.putIfAbsent(key, body, { signal });
      });
      walPuts.inc({ outcome: 'ok' });
      return 'landed';
    } catch (err) {
      walPuts.inc({ outcome: outcomeOf(err) });
      if (!isSluiceError(err, 'PRECONDITION_FAILED')) {
        const settled = await this.settleUnknownPut(key, seq, entry);
        if (settled === 'landed') return 'landed';
        walRedisRoundTrips.inc({ step: 'abandon' });
        await coordination.abandon(seq).catch(() => undefined);
        // Tombstoned: the entry never lands, so the write may take another seq at once.
        if (settled === 'tombstoned') return 'tombstoned';
        await this.sealAfterUnknownPut(table, shards, seq, err);
        throw err;
      }
    }
    // Refused: the seq holds another entry (Redis's counter went back, perhaps below a floor
    // served stale) or a hole. Whatever comes next waits for a floor read now.
    this.floors.delete(shardId(table.name, coordination.floorShard(shards)));
    const existing = await this.deps.store.get(key);
    if (existing && decodeWalEntry(existing.body, seq).kind === 'hole') {
      throw new SluiceError('WRITE_ABANDONED', 'the write took too long and was abandoned; retry it', {
        table: table.name,
        ...shardDetails(shards),
        seq,
      });
    }
    return 'collided';
  }

  /**
   * Decides a put whose outcome is unknown (its answer lost, or its deadline passed while it
   * may still land) as a seal decides a hole (`decideSeq`); unknown when the store does not
   * answer this either (docs/design.md, "Write").
   */
  private async settleUnknownPut(
    key: string,
    seq: number,
    entry: string,
  ): Promise<'landed' | 'tombstoned' | 'unknown'> {
    const decided = await decideSeq(
      this.deps.store,
      key,
      seq,
      entry,
      this.deps.config.wal.putTimeoutMs,
    ).catch(() => 'unknown' as const);
    return decided === 'gone' ? 'unknown' : decided;
  }

  /**
   * A put that failed may still have landed (its answer was lost): the entry is then durable
   * and unacked, and waits for a seal like any other. The seal request is asked for as after
   * a landed put; should it fail too, the seal watch still finds the seq unsealed.
   */
  private async sealAfterUnknownPut(table: TableDef, shards: readonly number[], seq: number, err: unknown) {
    for (const shard of shards) {
      try {
        await this.deps.scheduler.requestSeal(table.name, shard, { delayMs: table.settings.sealDelayMs });
      } catch (failure) {
        this.deps.log.warn(
          { err: failure, putError: err, table: table.name, shard, seq },
          'WAL put failed and sealing not yet requested',
        );
      }
    }
  }

  /** Starts the lane's background run, or asks the running one for another pass. */
  private runBackground(lane: Lane): void {
    if (lane.background) {
      lane.again = true;
      return;
    }
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    lane.idleTimer = null;
    // After the current turn: an allocation made at once by the caller takes the completions.
    lane.background = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.background(lane))
      .finally(() => {
        lane.background = null;
        this.forgetIfIdle(lane);
      });
  }

  /** Bookkeeping after the ack point: a failure here delays sealing, it never un-acks a write. */
  private async background(lane: Lane): Promise<void> {
    const { table, coordination } = lane;
    do {
      lane.again = false;
      const completions = lane.completions.splice(0);
      try {
        if (completions.length > 0) {
          walRedisRoundTrips.inc({ step: 'complete' });
          const done = await coordination.complete(completions, table.settings.sealDelayMs);
          this.urgentSeals.note(table.name, table.settings.maxGenerationBytes, done.unsealedBytes);
          for (const shard of done.armed) lane.sealWanted.add(shard);
        }
        for (const shard of [...lane.sealWanted]) {
          lane.sealWanted.delete(shard);
          const urgent = this.urgentSeals.isUrgent(table.name, shard);
          walRedisRoundTrips.inc({ step: 'seal_request' });
          await this.deps.scheduler.requestSeal(table.name, shard, {
            delayMs: urgent ? 0 : table.settings.sealDelayMs,
          });
          if (urgent) this.urgentSeals.asked(table.name, shard);
        }
      } catch (err) {
        // The completions come back for the next allocation; Redis counts each seq once.
        lane.completions.unshift(...completions);
        this.deps.log.warn(
          { err, table: table.name, lane: lane.id, completions: completions.length },
          'WAL entry durable, but sealing not yet requested',
        );
        return;
      }
    } while (lane.again);
  }

  /** Leaves the completions to the next allocation, unless the lane stays quiet. */
  private completeWhenIdle(lane: Lane): void {
    if (lane.idleTimer || lane.background) return;
    const delayMs = Math.min(IDLE_COMPLETE_MS, lane.table.settings.sealDelayMs / 2);
    lane.idleTimer = setTimeout(() => {
      lane.idleTimer = null;
      if (lane.completions.length > 0) this.runBackground(lane);
      else this.forgetIfIdle(lane);
    }, delayMs).unref();
  }

  private forgetIfIdle(lane: Lane): void {
    const idle =
      lane.groups.length === 0 &&
      lane.pipeline.inFlight === 0 &&
      lane.completions.length === 0 &&
      lane.sealWanted.size === 0 &&
      lane.background === null &&
      lane.idleTimer === null;
    if (idle) this.lanes.delete(lane.id);
  }
}

type PutOutcome = 'landed' | 'collided' | 'tombstoned';

/** When an entry's put began and ended, for the ack phases (`walAckPhase`). */
class EntryTiming {
  private readonly startedAt = performance.now();
  putStartedAt = this.startedAt;
  putEndedAt = this.startedAt;

  /** Observes the entry's seq, put and settle phases once for each of its `writes`. */
  observe(writes: number): void {
    const now = performance.now();
    const phases = [
      ['seq', this.putStartedAt - this.startedAt],
      ['put', this.putEndedAt - this.putStartedAt],
      ['settle', now - this.putEndedAt],
    ] as const;
    for (const [phase, ms] of phases) {
      for (let i = 0; i < writes; i++) walAckPhase.observe({ phase }, ms / 1000);
    }
  }
}

/**
 * Every write that asks to know where its entry goes is told before the put (`WalWrite.beforePut`).
 * Only an append-only table's writes ask, and such a write goes whole to one shard's lane.
 */
async function notePut(writes: readonly LaneWrite[], put: Omit<NotedPut, 'rows'>): Promise<void> {
  const noting = writes.flatMap((w) => [...w.values()]).filter((w) => w.beforePut);
  if (noting.length === 0) return;
  walRedisRoundTrips.inc({ step: 'note' });
  await Promise.all(noting.map((w) => w.beforePut!({ ...put, rows: writeRows(w) })));
}

/** The shards a group's writes touch, ascending. */
function shardsOf(writes: readonly LaneWrite[]): number[] {
  const shards = new Set<number>();
  for (const write of writes) for (const shard of write.keys()) shards.add(shard);
  return [...shards].sort((a, b) => a - b);
}

/** The error a write gets when one of the shards it touches was refused; undefined when none was. */
function refusalOf(write: LaneWrite, errors: ReadonlyMap<number, unknown>): unknown {
  for (const shard of write.keys()) if (errors.has(shard)) return errors.get(shard);
  return undefined;
}

function shardDetails(shards: readonly number[]): { shard: number } | { shards: readonly number[] } {
  return shards.length === 1 ? { shard: shards[0]! } : { shards };
}

/** The key of a shard in this process's maps of floors and seal-watch marks. */
function shardId(table: string, shard: number): string {
  return `${table}/${shard}`;
}

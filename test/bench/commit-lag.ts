/**
 * Ack → L0 commit lag of the write bench, and when a case's acked rows were all in L0. A
 * poller that reads manifests while the writers write costs their process and the endpoint
 * CPU that the floor's writers never pay (on 16 shards and S3, hundreds of GETs a second), so
 * only a case that measures the lag (`whileWriting`, the freshness cases) polls meanwhile; the
 * others poll only once their writers stopped (`writing`), to learn when all was in L0, and
 * take no lag samples. At most one acked write per millisecond is
 * sampled; a poller reads the shard manifests 25 ms after its previous round ended (through
 * a store of its own, so its reads are not counted as the pipeline's), every shard's at once,
 * and a sample is committed when the read that saw the WAL cursor of every shard it wrote
 * past its seq returned. The lag includes the table's `sealDelayMs`, and up to one round of
 * the poller too: on S3 a round is a GET per manifest version and shard, each delayed by the
 * endpoint, so `l0PollP50Ms`/`l0PollP99Ms` say how long rounds took (sleep included), the
 * bound on what the poller added to a lag. Settling also waits until every acked entry is in L0, so the store
 * requests counted up to then are the whole write, seal and flush of the acked rows;
 * `caughtUp` waits the same way at the end of each slice and tells when that was: the end
 * of the slice's rows' way through the pipeline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ShardAck } from '../../shared/wal/append.ts';
import { percentile, round } from './write-drive.ts';

const LAG_POLL_MS = 25;
const LAG_SAMPLE_EVERY_MS = 1;
/** Long enough for a flush that fell behind through a whole 10 s case to catch up. */
const LAG_SETTLE_MS = 120_000;

interface LagSample {
  ackAt: number;
  /** Shards of the write whose WAL cursor has not passed its seq yet. */
  waiting: number;
  committedAt: number | null;
}

export class CommitLag {
  private readonly waiting = new Map<number, { seq: number; sample: LagSample }[]>();
  private readonly samples: LagSample[] = [];
  /** Highest acked seq per shard, and the shard's WAL cursor as last read. */
  private readonly acked = new Map<number, number>();
  private readonly cursors = new Map<number, number>();
  private lastSampleAt = Number.NEGATIVE_INFINITY;
  /** How long each poll round took, from the end of the previous one (the sleep included), in ms. */
  private readonly rounds: number[] = [];
  private caughtUpAt: number | null = null;
  private running = true;
  /** Writers writing, in a case that does not poll meanwhile. */
  private holding = false;
  private readonly polling: Promise<void>;

  constructor(
    private readonly walCursor: (shard: number) => Promise<number>,
    private readonly options: { whileWriting: boolean },
  ) {
    this.polling = this.poll();
  }

  /** Runs the writers of a slice, with no poll round begun meanwhile unless `whileWriting`. */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.holding = !this.options.whileWriting;
    // Caught up with what came before; a round after this slice says when it is again.
    this.caughtUpAt = null;
    try {
      return await write();
    } finally {
      this.holding = false;
    }
  }

  offer(ackAt: number, shards: readonly ShardAck[]): void {
    for (const { shard, seq } of shards) this.acked.set(shard, Math.max(seq, this.acked.get(shard) ?? 0));
    if (!this.options.whileWriting || ackAt - this.lastSampleAt < LAG_SAMPLE_EVERY_MS) return;
    this.lastSampleAt = ackAt;
    const sample: LagSample = { ackAt, waiting: shards.length, committedAt: null };
    this.samples.push(sample);
    for (const { shard, seq } of shards) {
      const list = this.waiting.get(shard);
      if (list) list.push({ seq, sample });
      else this.waiting.set(shard, [{ seq, sample }]);
    }
  }

  /**
   * Waits (bounded) until every entry acked so far is in L0, polling on; `performance.now()`
   * when that was first seen, or null if not within the bound.
   */
  async caughtUp(): Promise<number | null> {
    const deadline = performance.now() + LAG_SETTLE_MS;
    while (!this.allCommitted() && performance.now() < deadline) {
      await sleep(LAG_POLL_MS);
    }
    return this.allCommitted() ? (this.caughtUpAt ?? performance.now()) : null;
  }

  /**
   * Waits (bounded) until every sample and every acked entry committed, then stops polling;
   * the lag's figures only where it was measured (`whileWriting`).
   */
  async settle(): Promise<
    | { everyAckCommitted: boolean }
    | {
        l0LagMinMs: number;
        l0LagP50Ms: number;
        l0LagP99Ms: number;
        l0LagSamples: number;
        l0LagUnresolved: number;
        everyAckCommitted: boolean;
        l0PollP50Ms: number;
        l0PollP99Ms: number;
      }
  > {
    const caughtUpAt = await this.caughtUp();
    await this.stop();
    if (!this.options.whileWriting) return { everyAckCommitted: caughtUpAt !== null };
    const rounds = [...this.rounds].sort((a, b) => a - b);
    const lags = this.samples
      .filter((s) => s.committedAt !== null)
      .map((s) => s.committedAt! - s.ackAt)
      .sort((a, b) => a - b);
    return {
      l0LagMinMs: round(percentile(lags, 0), 1),
      l0LagP50Ms: round(percentile(lags, 0.5), 1),
      l0LagP99Ms: round(percentile(lags, 0.99), 1),
      l0LagSamples: this.samples.length,
      l0LagUnresolved: this.samples.length - lags.length,
      everyAckCommitted: caughtUpAt !== null,
      l0PollP50Ms: round(percentile(rounds, 0.5), 1),
      l0PollP99Ms: round(percentile(rounds, 0.99), 1),
    };
  }

  /** Stops polling; what was measured so far stays. */
  async stop(): Promise<void> {
    this.running = false;
    await this.polling;
  }

  private allCommitted(): boolean {
    if (this.samples.some((s) => s.committedAt === null)) return false;
    return [...this.acked].every(([shard, seq]) => (this.cursors.get(shard) ?? 0) >= seq);
  }

  private async poll(): Promise<void> {
    let roundStart = performance.now();
    while (this.running) {
      await sleep(LAG_POLL_MS);
      if (this.holding) continue;
      // Every shard at once: read one after another, a round on S3 took a GET's latency per shard.
      await Promise.all([...this.acked].map(([shard, seq]) => this.pollShard(shard, seq)));
      const now = performance.now();
      this.rounds.push(now - roundStart);
      roundStart = now;
      if (this.allCommitted()) this.caughtUpAt ??= now;
      else this.caughtUpAt = null;
    }
  }

  private async pollShard(shard: number, seq: number): Promise<void> {
    const list = this.waiting.get(shard) ?? [];
    if (list.length === 0 && (this.cursors.get(shard) ?? 0) >= seq) return;
    let cursor: number;
    try {
      cursor = await this.walCursor(shard);
    } catch {
      return;
    }
    this.cursors.set(shard, cursor);
    const now = performance.now();
    // Entries offered while the manifest was read are in the shard's list by now; none is lost.
    const still = (this.waiting.get(shard) ?? []).filter((entry) => {
      if (entry.seq > cursor) return true;
      if (--entry.sample.waiting === 0) entry.sample.committedAt = now;
      return false;
    });
    this.waiting.set(shard, still);
  }
}

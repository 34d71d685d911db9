/**
 * When a shard's waiting group gets a WAL put of its own while other puts of the shard are
 * in flight (docs/design.md, "Write" step 3). Waiting costs the group's writers the rest of
 * the running put; not waiting costs a put and an allocation more. So a group that has
 * gathered for `pipelineWaitMs` waits only for a put expected to end within that much again
 * (on a fast store, nearly always), and gets its own put when the running one has that much
 * or more to go (a slow store) or has overrun its expected time by that much (a tail, which
 * on a slow store is likely to go on). A put's expected time is the shard's recent average.
 */
import type { WriteGroup } from './write-group.ts';

export interface PipelineLimits {
  maxPutsInFlight: number;
  /** Waiting at least this much starts a put at once: it holds a sizeable entry. */
  pipelineMinBytes: number;
  pipelineWaitMs: number;
}

/** Start a put now; ask again in `ms`; or wait until a put ends. */
export type PipelineDecision = { kind: 'start' } | { kind: 'askAgain'; ms: number } | { kind: 'wait' };

/** Weight of the newest put in the average: a few puts move it. */
const AVERAGE_WEIGHT = 0.2;

export class PutPipeline {
  /** Start times of the puts in flight, oldest first. */
  private readonly started: number[] = [];
  private typicalMs: number | null = null;

  constructor(private readonly limits: PipelineLimits) {}

  get inFlight(): number {
    return this.started.length;
  }

  /** Records a put's start; returns what `end` takes. */
  begin(now: number): number {
    this.started.push(now);
    return now;
  }

  end(startedAt: number, now: number): void {
    const at = this.started.indexOf(startedAt);
    if (at >= 0) this.started.splice(at, 1);
    const took = now - startedAt;
    this.typicalMs =
      this.typicalMs === null ? took : this.typicalMs + AVERAGE_WEIGHT * (took - this.typicalMs);
  }

  /** Whether the oldest of `waiting` groups (`head`) may start a put at `now`. */
  decide(head: WriteGroup, waiting: number, now: number): PipelineDecision {
    const { maxPutsInFlight, pipelineMinBytes, pipelineWaitMs } = this.limits;
    if (this.started.length === 0) return { kind: 'start' };
    if (this.started.length >= maxPutsInFlight) return { kind: 'wait' };
    // A full group has a successor behind it: it cannot grow, so holding it back gains nothing.
    if (waiting > 1 || head.bytes >= pipelineMinBytes) return { kind: 'start' };
    const waited = now - head.openedAt;
    if (waited < pipelineWaitMs) return { kind: 'askAgain', ms: pipelineWaitMs - waited };
    if (this.typicalMs === null) return { kind: 'start' };
    const remaining = this.started[0]! + this.typicalMs - now;
    if (remaining >= pipelineWaitMs || remaining <= -pipelineWaitMs) return { kind: 'start' };
    return { kind: 'askAgain', ms: remaining + pipelineWaitMs };
  }
}

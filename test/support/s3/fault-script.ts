/**
 * The faults the S3 test server injects, scripted per request kind and key glob: a latency
 * (fixed, or log-normal with a median and sigma), or a failure — 503 SlowDown, 500
 * InternalError, 409 ConditionalRequestConflict, an answer lost after the write took
 * effect (the connection is cut instead of answering), or a connection reset before it.
 * A rule may hold for a window of time, fire with a probability, or a bounded number of
 * times. Random draws come from a seeded generator, so a script replays.
 */
import { globToRegExp, STORE_OPS } from '../../../shared/store/faulty-store.ts';
import { seededRandom } from '../random.ts';

/** Request kinds: the store's operations (a put by its condition), and the S3 calls only Lance makes. */
export const S3_OPS = [...STORE_OPS, 'deleteMany', 'copy', 'multipart'] as const;
export type S3Op = (typeof S3_OPS)[number];

export type S3Fault = 'slowDown' | 'internalError' | 'conditionalConflict' | 'lostAnswer' | 'reset';

export interface Latency {
  fixedMs?: number;
  medianMs?: number;
  sigma?: number;
}

export interface FaultRule {
  ops?: S3Op[];
  /** A glob over the key (for a list, its prefix), as fault plans write it. */
  key?: string;
  latency?: Latency;
  fault?: S3Fault;
  /** Chance that the rule applies to a matching request; 1 when absent. */
  probability?: number;
  /** Applies at most this many times. */
  times?: number;
  /** The window, in ms from when the script was set; always when absent. */
  atMs?: number;
  forMs?: number;
}

export interface FaultScript {
  seed?: number;
  rules: FaultRule[];
}

/** What happens to one request: wait this long, then fail like this (or not at all). */
export interface Decision {
  delayMs: number;
  fault: S3Fault | null;
}

export interface InjectedFault {
  op: S3Op;
  key: string;
  fault: S3Fault;
}

export class Faults {
  private rules: Array<FaultRule & { match: RegExp | null; used: number }> = [];
  private random = seededRandom(1);
  private setAt = Date.now();
  readonly injected: InjectedFault[] = [];

  set(script: FaultScript): void {
    this.rules = script.rules.map((rule) => ({
      ...rule,
      match: rule.key ? globToRegExp(rule.key) : null,
      used: 0,
    }));
    this.random = seededRandom(script.seed ?? 1);
    this.setAt = Date.now();
  }

  decide(op: S3Op, key: string): Decision {
    const now = Date.now() - this.setAt;
    const decision: Decision = { delayMs: 0, fault: null };
    for (const rule of this.rules) {
      if (rule.ops && !rule.ops.includes(op)) continue;
      if (rule.match && !rule.match.test(key)) continue;
      if (rule.atMs !== undefined && now < rule.atMs) continue;
      if (rule.forMs !== undefined && now >= (rule.atMs ?? 0) + rule.forMs) continue;
      if (rule.times !== undefined && rule.used >= rule.times) continue;
      if (rule.fault && decision.fault) continue;
      if (this.random() >= (rule.probability ?? 1)) continue;
      rule.used += 1;
      if (rule.latency) decision.delayMs += this.latencyOf(rule.latency);
      if (rule.fault) {
        decision.fault = rule.fault;
        this.injected.push({ op, key, fault: rule.fault });
      }
    }
    return decision;
  }

  private latencyOf(latency: Latency): number {
    if (latency.medianMs === undefined) return latency.fixedMs ?? 0;
    // Box–Muller: a standard normal draw, scaled into a log-normal around the median.
    const normal = Math.sqrt(-2 * Math.log(1 - this.random())) * Math.cos(2 * Math.PI * this.random());
    return (latency.fixedMs ?? 0) + latency.medianMs * Math.exp((latency.sigma ?? 0) * normal);
  }
}

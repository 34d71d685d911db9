/**
 * An ObjectStore wrapper that injects the failures object storage really has, on a script:
 * errors before the operation, latency, and lost acks (the operation takes effect on the
 * inner store, then its answer is lost). The torture tests and benches drive the real stores
 * through it, so the faults hit exactly the code paths production runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type ErrorCode, SluiceError } from '../errors.ts';
import { abortedError, isAbortError, throwIfAborted } from './abort.ts';
import type {
  GetOptions,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OpOptions,
  PutOptions,
  StagedObject,
  StoredObject,
} from './object-store.ts';

export type StoreOp = 'get' | 'head' | 'put' | 'putIfAbsent' | 'putIfMatch' | 'list' | 'delete';

export const STORE_OPS: readonly StoreOp[] = [
  'get',
  'head',
  'put',
  'putIfAbsent',
  'putIfMatch',
  'list',
  'delete',
];

export interface FaultRule {
  /** Operations the rule applies to; default '*' (all). */
  op?: StoreOp | '*' | readonly StoreOp[];
  /**
   * Keys it applies to (for list: the prefix). A RegExp, or a glob matched against the
   * whole key: `*` stays within a path segment, `**` crosses segments, `?` is one
   * character. Default: every key.
   */
  key?: RegExp | string;
  /**
   * 'fail': the call throws and never reaches the inner store. 'lostAck': the inner store
   * performs it, then the call throws. Omitted: the rule only adds latency.
   */
  fault?: 'fail' | 'lostAck';
  /**
   * Delay before the call reaches the inner store; the call's AbortSignal cuts it short. A
   * function is asked once per call, for latency drawn from a distribution.
   */
  latencyMs?: number | (() => number);
  /** Code of the thrown error; default STORE_UNAVAILABLE. */
  code?: ErrorCode;
  /** Fire on the next N matching calls, then expire. Default: until heal() or remove(). */
  times?: number;
  /** heal() leaves the rule in place; only remove() ends it. */
  permanent?: boolean;
}

export interface FaultHandle {
  /** Calls the rule has fired on. */
  readonly hits: number;
  remove(): void;
}

interface ActiveRule {
  readonly spec: FaultRule;
  readonly ops: ReadonlySet<StoreOp>;
  readonly key: RegExp | undefined;
  remaining: number;
  hits: number;
}

interface Plan {
  latencyMs: number;
  fault?: { kind: 'fail' | 'lostAck'; code: ErrorCode };
}

export class FaultyStore implements ObjectStore {
  private rules: ActiveRule[] = [];
  private readonly counts = Object.fromEntries(STORE_OPS.map((op) => [op, 0])) as Record<StoreOp, number>;

  /** The inner store's staging, with the faults and counts of a put-if-absent on the publish. */
  readonly stage?: (body: Uint8Array, options?: OpOptions) => Promise<StagedObject>;

  constructor(readonly inner: ObjectStore) {
    const stage = inner.stage?.bind(inner);
    if (!stage) return;
    this.stage = async (body, options) => {
      const staged = await stage(body, options);
      return {
        putIfAbsent: (key, publish) =>
          this.run('putIfAbsent', key, publish?.signal, () => staged.putIfAbsent(key, publish)),
        discard: () => staged.discard(),
      };
    };
  }

  get url(): string {
    return this.inner.url;
  }

  /** Calls made through the wrapper per operation, failed ones included. */
  get calls(): Readonly<Record<StoreOp, number>> {
    return this.counts;
  }

  inject(spec: FaultRule): FaultHandle {
    const rule = activate(spec);
    this.rules.push(rule);
    return {
      get hits() {
        return rule.hits;
      },
      remove: () => this.drop(rule),
    };
  }

  /** Ends every rule that is not permanent. */
  heal(): void {
    this.rules = this.rules.filter((rule) => rule.spec.permanent === true);
  }

  get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    return this.run('get', key, options?.signal, () => this.inner.get(key, options));
  }

  head(key: string, options?: OpOptions): Promise<ObjectMeta | null> {
    return this.run('head', key, options?.signal, () => this.inner.head(key, options));
  }

  put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectMeta> {
    return this.run('put', key, options?.signal, () => this.inner.put(key, body, options));
  }

  putIfAbsent(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta> {
    return this.run('putIfAbsent', key, options?.signal, () => this.inner.putIfAbsent(key, body, options));
  }

  putIfMatch(key: string, body: Uint8Array, etag: string, options?: OpOptions): Promise<ObjectMeta> {
    return this.run('putIfMatch', key, options?.signal, () =>
      this.inner.putIfMatch(key, body, etag, options),
    );
  }

  delete(key: string, options?: OpOptions): Promise<void> {
    return this.run('delete', key, options?.signal, () => this.inner.delete(key, options));
  }

  /** A list call is one operation: its faults strike before the first page (fail) or instead of it (lostAck). */
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta[]> {
    const plan = this.begin('list', prefix);
    return this.pages(prefix, options, plan);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async run<T>(
    op: StoreOp,
    key: string,
    signal: AbortSignal | undefined,
    action: () => Promise<T>,
  ): Promise<T> {
    const plan = this.begin(op, key);
    await delay(plan.latencyMs, signal, op);
    if (plan.fault?.kind === 'fail') throw injected(op, key, plan.fault);
    const result = await action();
    if (plan.fault?.kind === 'lostAck') throw injected(op, key, plan.fault);
    return result;
  }

  private async *pages(
    prefix: string,
    options: ListOptions | undefined,
    plan: Plan,
  ): AsyncGenerator<ObjectMeta[]> {
    await delay(plan.latencyMs, options?.signal, 'list');
    if (plan.fault?.kind === 'fail') throw injected('list', prefix, plan.fault);
    for await (const page of this.inner.list(prefix, options)) {
      if (plan.fault?.kind === 'lostAck') throw injected('list', prefix, plan.fault);
      yield page;
    }
    if (plan.fault?.kind === 'lostAck') throw injected('list', prefix, plan.fault);
  }

  /**
   * Counts the call and decides its fate at once, so concurrent calls consume `times`
   * exactly. Every matching latency-only rule adds its delay; the first matching fault
   * rule fires (with its own latency).
   */
  private begin(op: StoreOp, key: string): Plan {
    this.counts[op] += 1;
    const matching = this.rules.filter(
      (rule) => rule.ops.has(op) && (rule.key === undefined || key.search(rule.key) >= 0),
    );
    const faultRule = matching.find((rule) => rule.spec.fault !== undefined);
    const firing = matching.filter((rule) => rule.spec.fault === undefined || rule === faultRule);
    for (const rule of firing) this.fire(rule);
    return {
      latencyMs: firing.reduce((sum, rule) => sum + latencyOf(rule.spec), 0),
      fault: faultRule?.spec.fault && {
        kind: faultRule.spec.fault,
        code: faultRule.spec.code ?? 'STORE_UNAVAILABLE',
      },
    };
  }

  private fire(rule: ActiveRule): void {
    rule.hits += 1;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.drop(rule);
  }

  private drop(rule: ActiveRule): void {
    this.rules = this.rules.filter((candidate) => candidate !== rule);
  }
}

function activate(spec: FaultRule): ActiveRule {
  const problem = ruleProblem(spec);
  if (problem) throw new SluiceError('INVALID_REQUEST', `invalid fault rule: ${problem}`, {});
  const ops =
    spec.op === undefined || spec.op === '*' ? STORE_OPS : typeof spec.op === 'string' ? [spec.op] : spec.op;
  return {
    spec,
    ops: new Set(ops),
    key:
      spec.key === undefined ? undefined : typeof spec.key === 'string' ? globToRegExp(spec.key) : spec.key,
    remaining: spec.times ?? Number.POSITIVE_INFINITY,
    hits: 0,
  };
}

function ruleProblem({ fault, latencyMs, times, permanent }: FaultRule): string | undefined {
  if (fault === undefined && !latencyMs) return 'a rule needs a fault or a latency';
  if (typeof latencyMs === 'number' && !(Number.isFinite(latencyMs) && latencyMs >= 0)) {
    return `latencyMs must be >= 0, not ${latencyMs}`;
  }
  if (times === undefined) return undefined;
  if (!Number.isSafeInteger(times) || times < 1) return `times must be a positive integer, not ${times}`;
  if (permanent) return 'a rule that expires after `times` calls cannot be permanent';
  return undefined;
}

function latencyOf(spec: FaultRule): number {
  const ms = typeof spec.latencyMs === 'function' ? spec.latencyMs() : (spec.latencyMs ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** A key glob as fault rules write it: `*` within a segment, `**` across segments, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i += 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

async function delay(ms: number, signal: AbortSignal | undefined, op: string): Promise<void> {
  throwIfAborted(signal, op);
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch (err) {
    throw isAbortError(err) ? abortedError(op, err) : err;
  }
}

function injected(op: StoreOp, key: string, fault: NonNullable<Plan['fault']>): SluiceError {
  const what = fault.kind === 'fail' ? 'injected failure' : 'injected lost ack (the operation took effect)';
  return new SluiceError(fault.code, `${what}: ${op} ${key}`, { op, key, injected: fault.kind });
}

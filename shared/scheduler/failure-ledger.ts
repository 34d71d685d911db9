/**
 * The failure ledger: one entry per (kind, target) in Redis, kept apart from any job, so it
 * survives a job's removal and re-creation and counts every run that failed — BullMQ's own
 * attempts are small, this is the durable budget. A success clears the entry (I15).
 *
 * Keys (one hash tag per entry; the indexes share one of their own):
 *   {prefix}:{ledger/{kind}/{target}}:entry   the entry, JSON
 *   {prefix}:{ledger}:{kind}:targets          ZSET of targets with an entry, ordered by name
 *   {prefix}:{ledger}:cooling                 ZSET of `{kind}/{target}` that entered a cooldown
 * An entry changes by compare-and-swap on its own key, then the indexes follow; a reader
 * skips an index member whose entry is gone, so a crash between the two hides nothing
 * that matters and the next failure or success of that target repairs the index.
 *
 * I17: every read below is GET and ZRANGEBYLEX — listing never changes a count or a time.
 */
import { SluiceError, toSluiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { cooldowns } from '../metrics.ts';
import { pageLimit } from '../page-limit.ts';
import type { RedisClient } from '../redis/connection.ts';
import { luaCommand, runLuaCommand } from '../redis/lua-commands.ts';
import { isTableName } from '../table/table-name.ts';
import { type LedgerEntry, WORK_KINDS, type WorkKind } from './contracts.ts';
import { isCoolingDown } from './cooldown.ts';
import { decodeLedgerCursor, encodeLedgerCursor } from './ledger-cursor.ts';
import { afterFailure, type LedgerSettings, parseLedgerEntry } from './ledger-entry.ts';

export interface Cooldown {
  kind: WorkKind;
  target: string;
  failures: number;
  until: string;
  lastError: LedgerEntry['lastError'];
  class: LedgerEntry['class'];
  needsAttention: boolean;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface PageOptions {
  after?: string | null;
  limit?: number;
}

export interface FailureLedgerDeps {
  redis: RedisClient;
  prefix: string;
  settings: LedgerSettings;
  log: Logger;
}

export const LEDGER_SWAP = luaCommand<'entry', number>('ledger-swap-1.lua', ['entry']);

/** Failures of one target come one job at a time; a swap that keeps losing means something is wrong. */
const MAX_SWAPS = 8;

export class FailureLedger {
  constructor(private readonly deps: FailureLedgerDeps) {}

  /** `now` in ms since the epoch, like Date.now(); tests pass their own clock. */
  async recordFailure(
    kind: WorkKind,
    target: string,
    error: unknown,
    now = Date.now(),
  ): Promise<LedgerEntry> {
    const key = this.entryKey(kind, target);
    const failure = { kind, target, error: toSluiceError(error), now: new Date(now) };
    for (let swap = 0; swap < MAX_SWAPS; swap++) {
      const stored = await this.deps.redis.get(key);
      const { entry, enteredCooldown } = afterFailure(parseLedgerEntry(stored), failure, this.deps.settings);
      const swapped = await runLuaCommand(this.deps.redis, LEDGER_SWAP, { entry: key }, [
        stored ?? '',
        JSON.stringify(entry),
      ]);
      if (swapped !== 1) continue;
      await this.deps.redis.zadd(this.targetsKey(kind), 0, target);
      if (entry.cooldownUntil !== null) await this.deps.redis.zadd(this.coolingKey(), 0, `${kind}/${target}`);
      if (enteredCooldown) {
        this.deps.log.warn(
          { kind, target, failures: entry.failures, until: entry.cooldownUntil, lastError: entry.lastError },
          'entering cooldown: the scheduler skips this target until then',
        );
        cooldowns.inc({ kind });
      }
      return entry;
    }
    throw new SluiceError('REDIS_UNAVAILABLE', 'the failure ledger entry kept changing under its update', {
      kind,
      target,
    });
  }

  /** Clears the entry; returns what it held, or null when the target had no failures. */
  async recordSuccess(kind: WorkKind, target: string): Promise<LedgerEntry | null> {
    const cleared = parseLedgerEntry(await this.deps.redis.getdel(this.entryKey(kind, target)));
    await Promise.all([
      this.deps.redis.zrem(this.targetsKey(kind), target),
      this.deps.redis.zrem(this.coolingKey(), `${kind}/${target}`),
    ]);
    if (cleared) {
      this.deps.log.info(
        { kind, target, failures: cleared.failures },
        'succeeded; failures and cooldown cleared',
      );
    }
    return cleared;
  }

  async get(kind: WorkKind, target: string): Promise<LedgerEntry | null> {
    return parseLedgerEntry(await this.deps.redis.get(this.entryKey(kind, target)));
  }

  async isCoolingDown(kind: WorkKind, target: string, now = Date.now()): Promise<boolean> {
    const entry = await this.get(kind, target);
    return entry !== null && isCoolingDown(entry.cooldownUntil, now);
  }

  /** Targets cooling down at `now`, by kind then target. */
  listCooldowns(options: PageOptions = {}, now = Date.now()): Promise<Page<Cooldown>> {
    return this.page(this.coolingKey(), 'cooldowns', isCoolingMember, options, async (member) => {
      const [kind, target] = member.split('/') as [WorkKind, string];
      const entry = await this.get(kind, target);
      if (!entry || !isCoolingDown(entry.cooldownUntil, now)) return null;
      const { failures, lastError, needsAttention } = entry;
      return {
        kind,
        target,
        failures,
        until: entry.cooldownUntil!,
        lastError,
        class: entry.class,
        needsAttention,
      };
    });
  }

  /** Every target of `kind` with an entry, by target name. */
  listFailures(kind: WorkKind, options: PageOptions = {}): Promise<Page<LedgerEntry>> {
    return this.page(this.targetsKey(kind), `failures/${kind}`, isTableName, options, (target) =>
      this.get(kind, target),
    );
  }

  /**
   * Up to `limit` items after the cursor. Index members whose item is gone (cleared, or a
   * cooldown that has ended) are passed over, so a page may read past `limit` members.
   */
  private async page<T>(
    index: string,
    of: string,
    isMember: (member: string) => boolean,
    options: PageOptions,
    load: (member: string) => Promise<T | null>,
  ): Promise<Page<T>> {
    const limit = pageLimit(options.limit);
    let after = options.after ? decodeLedgerCursor(options.after, of, isMember) : null;
    const found: Array<{ member: string; item: T }> = [];
    for (;;) {
      const members = await this.deps.redis.zrangebylex(
        index,
        after ? `(${after}` : '-',
        '+',
        'LIMIT',
        0,
        limit + 1,
      );
      const items = await Promise.all(members.map(load));
      members.forEach((member, i) => {
        const item = items[i];
        if (item !== null && item !== undefined) found.push({ member, item });
      });
      if (found.length > limit || members.length <= limit) break;
      after = members.at(-1)!;
    }
    const shown = found.slice(0, limit);
    return {
      items: shown.map((f) => f.item),
      next: found.length > limit ? encodeLedgerCursor(of, shown.at(-1)!.member) : null,
    };
  }

  private entryKey(kind: WorkKind, target: string): string {
    return `${this.deps.prefix}:{ledger/${kind}/${target}}:entry`;
  }

  private targetsKey(kind: WorkKind): string {
    return `${this.deps.prefix}:{ledger}:${kind}:targets`;
  }

  private coolingKey(): string {
    return `${this.deps.prefix}:{ledger}:cooling`;
  }
}

function isCoolingMember(member: string): boolean {
  const [kind, target, ...rest] = member.split('/');
  return rest.length === 0 && WORK_KINDS.includes(kind as WorkKind) && isTableName(target);
}

/**
 * How one failure changes a target's ledger entry, pure: consecutive count, class, last
 * error, cooldown (I15) and the operator flag. The ledger (failure-ledger.ts) stores what
 * this returns; nothing here touches Redis.
 */
import type { Config } from '../config.ts';
import type { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';
import { type LedgerEntry, WORK_KINDS, type WorkKind } from './contracts.ts';
import { cooldownSeconds, isCoolingDown } from './cooldown.ts';
import { classifyFailure } from './failure-class.ts';

export type LedgerSettings = Pick<
  Config['scheduler'],
  'cooldownAfterFailures' | 'cooldownBaseSeconds' | 'cooldownMaxSeconds' | 'attentionAfterFailures'
>;

/** A message longer than this is cut: the entry is listed MAX_PAGE (shared/page-limit.ts) at a time. */
const MAX_MESSAGE = 2000;

export interface FailureOutcome {
  entry: LedgerEntry;
  /** The target was not cooling down before this failure and is now (I15: warn and count once). */
  enteredCooldown: boolean;
}

export function afterFailure(
  previous: LedgerEntry | null,
  failure: { kind: WorkKind; target: string; error: SluiceError; now: Date },
  settings: LedgerSettings,
): FailureOutcome {
  const { kind, target, error, now } = failure;
  const failures = (previous?.failures ?? 0) + 1;
  const failureClass = classifyFailure(error);
  const seconds = cooldownSeconds(failures, settings);
  const cooldownUntil = seconds > 0 ? new Date(now.getTime() + seconds * 1000).toISOString() : null;
  const entry: LedgerEntry = {
    kind,
    target,
    failures,
    class: failureClass,
    lastError: { code: error.code, message: error.message.slice(0, MAX_MESSAGE) },
    firstFailureAt: previous?.firstFailureAt ?? now.toISOString(),
    lastFailureAt: now.toISOString(),
    cooldownUntil,
    // Sticky until a success: a data-or-configuration failure stays the operator's to look at.
    needsAttention:
      (previous?.needsAttention ?? false) ||
      failures >= settings.attentionAfterFailures ||
      failureClass === 'data-or-configuration',
  };
  const wasCooling = previous !== null && isCoolingDown(previous.cooldownUntil, now.getTime());
  return { entry, enteredCooldown: !wasCooling && isCoolingDown(cooldownUntil, now.getTime()) };
}

/** A stored entry, or null when the text is not one (a foreign or older value is ignored, not trusted). */
export function parseLedgerEntry(text: string | null): LedgerEntry | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(value)) return null;
  const ok =
    WORK_KINDS.includes(value.kind as WorkKind) &&
    typeof value.target === 'string' &&
    Number.isSafeInteger(value.failures) &&
    typeof value.firstFailureAt === 'string' &&
    typeof value.lastFailureAt === 'string' &&
    (value.cooldownUntil === null || typeof value.cooldownUntil === 'string') &&
    typeof value.needsAttention === 'boolean' &&
    isPlainObject(value.lastError);
  return ok ? (value as unknown as LedgerEntry) : null;
}

/**
 * I15 cooldown arithmetic, pure: after `cooldownAfterFailures` consecutive failures of a
 * (kind, target) the scheduler skips it for `cooldownBaseSeconds`, doubling per further
 * failure up to `cooldownMaxSeconds`; `cooldownAfterFailures` 0 turns cooldowns off.
 */
import type { Config } from '../config.ts';

export type CooldownSettings = Pick<
  Config['scheduler'],
  'cooldownAfterFailures' | 'cooldownBaseSeconds' | 'cooldownMaxSeconds'
>;

/** Seconds to skip the target after its `failures`-th consecutive failure; 0 = no cooldown. */
export function cooldownSeconds(failures: number, settings: CooldownSettings): number {
  const { cooldownAfterFailures: after, cooldownBaseSeconds: base, cooldownMaxSeconds: max } = settings;
  if (after === 0 || failures < after) return 0;
  // 2 ** n is Infinity long before n overflows anything, and min() caps it.
  return Math.min(max, base * 2 ** (failures - after));
}

/** `now` in ms since the epoch. */
export function isCoolingDown(cooldownUntil: string | null, now: number): boolean {
  return cooldownUntil !== null && Date.parse(cooldownUntil) > now;
}

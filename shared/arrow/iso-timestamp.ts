/**
 * Strict ISO-8601 timestamps for JSON input. `Date.parse` accepts far more than ISO
 * (and reads some of it as local time), so the grammar is spelled out here: a date,
 * optionally a time with seconds and up to nine fractional digits, optionally `Z` or an
 * offset. Without an offset the time is UTC. Fractions finer than the column's unit are
 * refused unless they are zeros, so no input is silently truncated.
 */
import type { TimestampUnit } from './column-type.ts';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

const UNIT_DIGITS: Record<TimestampUnit, number> = { ms: 3, us: 6 };
const UNIT_PER_MS: Record<TimestampUnit, bigint> = { ms: 1n, us: 1000n };

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch time in `unit`, or undefined when `text` is not a valid ISO-8601 timestamp. */
export function parseIsoTimestamp(text: string, unit: TimestampUnit): bigint | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', z, sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const offsetHours = Number(oh);
  const offsetMinutes = Number(om);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const digits = UNIT_DIGITS[unit];
  const padded = frac.padEnd(9, '0');
  if (/[^0]/.test(padded.slice(digits))) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(padded.slice(0, 3)));
  let ms = date.getTime();
  if (z === undefined && sign !== undefined) {
    const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
    ms += sign === '+' ? -offsetMs : offsetMs;
  }
  return BigInt(ms) * UNIT_PER_MS[unit] + BigInt(padded.slice(3, digits) || '0');
}

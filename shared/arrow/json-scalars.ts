/**
 * How one JSON value becomes one Arrow scalar and back, for rows and for keys alike, so
 * the rules below hold everywhere a client hands Sluice a value:
 * - integers beyond 2^53 cannot travel as JSON numbers without losing digits, so int64
 *   (and timestamps) take them only as decimal strings, range-checked;
 * - JSON has no NaN or Infinity: float columns take the strings "NaN", "Infinity" and
 *   "-Infinity" for them, and nothing else takes them at all.
 * Each parser returns undefined for a value it refuses; the caller knows the row, column
 * or key position to name in the error.
 */
import type { ColumnType, TimestampUnit } from './column-type.ts';
import { parseIsoTimestamp } from './iso-timestamp.ts';

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const DECIMAL = /^-?(0|[1-9][0-9]*)$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
export const FLOAT32_MAX = 3.4028234663852886e38;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const LONE_SURROGATE = /\p{Cs}/u;

const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
]);

export function toInt32(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX
    ? value
    : undefined;
}

function decimalToInt64(text: string): bigint | undefined {
  if (!DECIMAL.test(text) || text.length > 20) return undefined;
  const big = BigInt(text);
  return big >= INT64_MIN && big <= INT64_MAX ? big : undefined;
}

/** A safe-integer number stays a number (cheaper to store); everything else is a bigint. */
export function toInt64(value: unknown): number | bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string') return decimalToInt64(value);
  return undefined;
}

export function toInt64BigInt(value: unknown): bigint | undefined {
  const parsed = toInt64(value);
  return typeof parsed === 'number' ? BigInt(parsed) : parsed;
}

export function toFloat64(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return NON_FINITE.get(value);
  return undefined;
}

/** Finite numbers that would overflow to ±Infinity in float32 are refused, not rounded. */
export function toFloat32(value: unknown): number | undefined {
  const parsed = toFloat64(value);
  if (parsed === undefined || (Number.isFinite(parsed) && Math.abs(parsed) > FLOAT32_MAX)) return undefined;
  return parsed;
}

/** An integer in the column's unit (number or decimal string) or an ISO-8601 string. */
export function toTimestamp(value: unknown, unit: TimestampUnit): number | bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (DECIMAL.test(value)) return decimalToInt64(value);
  const parsed = parseIsoTimestamp(value, unit);
  return parsed !== undefined && parsed >= INT64_MIN && parsed <= INT64_MAX ? parsed : undefined;
}

/** The JSON form of an int64: a number while it is exact, a decimal string beyond 2^53. */
export function int64ToJson(value: bigint): number | string {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
}

export function floatToJson(value: number): number | string {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

/** A string that encodes to UTF-8 without loss: a lone surrogate would turn into U+FFFD. */
export function toUtf8String(value: unknown): string | undefined {
  return typeof value === 'string' && !LONE_SURROGATE.test(value) ? value : undefined;
}

/** Decoded size of padded, standard-alphabet base64, or undefined when `value` is not that. */
export function base64DecodedLength(value: unknown): number | undefined {
  if (typeof value !== 'string' || !BASE64.test(value)) return undefined;
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  return (value.length / 4) * 3 - padding;
}

/** What a client must send for a column of this type, for error messages. */
export function expectedJson(type: ColumnType): string {
  switch (type.kind) {
    case 'int32':
      return `int32 (integer from ${INT32_MIN} to ${INT32_MAX})`;
    case 'int64':
      return 'int64 (integer; beyond 2^53 as a decimal string)';
    case 'float32':
      return 'float32 (number within float32 range, or "NaN", "Infinity", "-Infinity")';
    case 'float64':
      return 'float64 (number, or "NaN", "Infinity", "-Infinity")';
    case 'bool':
      return 'bool (true or false)';
    case 'utf8':
      return 'utf8 (string of well-formed Unicode)';
    case 'binary':
      return 'binary (padded standard base64 string)';
    case 'timestamp':
      return `timestamp[${type.unit}] (integer ${type.unit === 'ms' ? 'milliseconds' : 'microseconds'} since 1970, or ISO-8601 string)`;
    case 'vector':
      return `vector[float32, ${type.dim}] (array of ${type.dim} numbers)`;
  }
}

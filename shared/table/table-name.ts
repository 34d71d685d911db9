/**
 * Table names (docs/design.md, "Table names"): `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`. A name is one path
 * segment of every object key of the table, so it can never be `.` or `..` (the first
 * character is never a dot) nor contain a `/`.
 */
import { SluiceError } from '../errors.ts';

export const TABLE_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function isTableName(name: unknown): name is string {
  return typeof name === 'string' && TABLE_NAME_PATTERN.test(name);
}

/** The refusal of a name that is not a table name, saying what a name may be. */
export function invalidTableNameMessage(name: unknown): string {
  const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 140)) : typeof name;
  return `invalid table name ${shown}: use 1 to 128 of A-Z a-z 0-9 _ . -, not starting with . or -`;
}

export function assertTableName(name: unknown): string {
  if (isTableName(name)) return name;
  throw new SluiceError('INVALID_TABLE_NAME', invalidTableNameMessage(name), {
    name: typeof name === 'string' ? name.slice(0, 140) : null,
    pattern: TABLE_NAME_PATTERN.source,
  });
}

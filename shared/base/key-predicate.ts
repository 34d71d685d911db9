/**
 * SQL predicates on the primary key, for Lance filters: `id = 7`, `id IN (1, 2)`, and for a
 * composite key `(a = 1 AND b = 'x') OR …`. Keys are int32, int64 or utf8 (see
 * shared/arrow/column-type.ts), so a literal is a decimal integer or a quoted string.
 */
import type { KeyValue } from '../arrow/key-codec.ts';
import type { KeyColumn } from '../arrow/schema.ts';

export function keyLiteral(value: KeyValue): string {
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return String(value);
}

/** Backquoted, so a column named like an SQL keyword still parses. */
export function columnRef(name: string): string {
  return `\`${name}\``;
}

export function keysPredicate(columns: readonly KeyColumn[], keys: readonly (readonly KeyValue[])[]): string {
  if (columns.length === 1) {
    return `${columnRef(columns[0]!.name)} IN (${keys.map((k) => keyLiteral(k[0]!)).join(', ')})`;
  }
  return keys
    .map((k) => `(${columns.map((c, i) => `${columnRef(c.name)} = ${keyLiteral(k[i]!)}`).join(' AND ')})`)
    .join(' OR ');
}

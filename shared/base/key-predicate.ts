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

/**
 * Keys in `[from, to)`, compared as tuples column by column, the order of the encoded keys:
 * `(a, b) >= (x, y)` is `a > x OR (a = x AND b >= y)`. Either bound may be absent.
 */
export function rangePredicate(
  columns: readonly KeyColumn[],
  from: readonly KeyValue[] | null,
  to: readonly KeyValue[] | null,
): string | null {
  const parts = [
    from && tupleCompare(columns, from, '>', true),
    to && tupleCompare(columns, to, '<', false),
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.map((part) => `(${part})`).join(' AND ') : null;
}

function tupleCompare(
  columns: readonly KeyColumn[],
  key: readonly KeyValue[],
  op: '>' | '<',
  orEqual: boolean,
): string {
  const eq = (i: number) => `${columnRef(columns[i]!.name)} = ${keyLiteral(key[i]!)}`;
  const branches = columns.map((column, i) => {
    const last = i === columns.length - 1;
    const cmp = `${columnRef(column.name)} ${op}${last && orEqual ? '=' : ''} ${keyLiteral(key[i]!)}`;
    return [...columns.slice(0, i).map((_, j) => eq(j)), cmp].join(' AND ');
  });
  return branches.map((branch) => `(${branch})`).join(' OR ');
}

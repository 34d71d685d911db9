/**
 * SQL predicates on the primary key, for Lance filters: `id IN (1, 2)`, and for a
 * composite key `(a = 1 AND b = 'x') OR …`. Keys are int32, int64 or utf8 (see
 * shared/arrow/column-type.ts), so a literal is a decimal integer or a quoted string.
 *
 * Lance refuses a filter nested more than 500 deep and, deeper still, the process dies in
 * its parser; an `OR` chain nests one level per key. So a filter never holds more than a
 * bounded number of keys (a caller with more runs one filter per chunk), and a composite
 * key's branches are `OR`ed as a balanced tree, whose depth grows with the logarithm of
 * the keys (docs/base-table.md, "Filters on the key").
 */
import type { TimestampUnit } from '../arrow/column-type.ts';
import type { KeyValue } from '../arrow/key-codec.ts';
import type { KeyColumn } from '../arrow/schema.ts';

/** Values in one `IN` list: Lance takes a single-column list far longer than this. */
const KEYS_PER_IN_LIST = 10_000;
/** Composite keys in one filter: a balanced tree of them nests about 10 levels deep. */
const KEYS_PER_OR_TREE = 1_000;

const INT64_MIN = -(2n ** 63n);

/**
 * A literal Lance parses as exactly this value. The smallest int64 cannot be written as a
 * number: Lance reads `-9223372036854775808` as the float negation of a number too large
 * for int64, so it is written as an expression Lance folds to the int64 itself.
 */
export function keyLiteral(value: KeyValue): string {
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  const integer = BigInt(value);
  return integer === INT64_MIN ? '(-9223372036854775807 - 1)' : String(integer);
}

const ARROW_UNIT: Record<TimestampUnit, string> = { ms: 'Millisecond', us: 'Microsecond' };

/** A timestamp literal of the column's unit for `ms` since the epoch; compared to the column as is, so its index serves. */
export function timestampLiteral(ms: number, unit: TimestampUnit): string {
  const value = BigInt(ms) * (unit === 'us' ? 1000n : 1n);
  return `arrow_cast(${value}, 'Timestamp(${ARROW_UNIT[unit]}, None)')`;
}

/** Backquoted, so a column named like an SQL keyword still parses. */
export function columnRef(name: string): string {
  return `\`${name}\``;
}

/** Filters that together match exactly `keys`, each of a bounded size and depth. */
export function keysPredicates(
  columns: readonly KeyColumn[],
  keys: readonly (readonly KeyValue[])[],
): string[] {
  const single = columns.length === 1;
  const size = single ? KEYS_PER_IN_LIST : KEYS_PER_OR_TREE;
  const chunks: string[] = [];
  for (let at = 0; at < keys.length; at += size) {
    const chunk = keys.slice(at, at + size);
    chunks.push(single ? inList(columns[0]!, chunk) : orTree(columns, chunk));
  }
  return chunks;
}

function inList(column: KeyColumn, keys: readonly (readonly KeyValue[])[]): string {
  return `${columnRef(column.name)} IN (${keys.map((k) => keyLiteral(k[0]!)).join(', ')})`;
}

function orTree(columns: readonly KeyColumn[], keys: readonly (readonly KeyValue[])[]): string {
  if (keys.length === 1) {
    return `(${columns.map((c, i) => `${columnRef(c.name)} = ${keyLiteral(keys[0]![i]!)}`).join(' AND ')})`;
  }
  const half = keys.length >> 1;
  return `(${orTree(columns, keys.slice(0, half))} OR ${orTree(columns, keys.slice(half))})`;
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

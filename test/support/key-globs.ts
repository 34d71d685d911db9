/**
 * Fault-plan globs over the object layout (docs/design.md, "Object layout"), built from
 * the path functions so that a test's fault follows the layout if it changes.
 */
import { tablesPrefix } from '../../shared/table/paths.ts';

const TABLE = '__glob_table__';
const SHARD = 987_654_321;

/** `prefix` of `table` and `shard`, either one widened to `*` for every table or every shard. */
export function prefixGlob(
  prefix: (table: string, shard: number) => string,
  table: string | '*',
  shard: number | '*',
): string {
  return prefix(TABLE, SHARD)
    .split('/')
    .map((segment) => (segment === TABLE ? table : segment === String(SHARD) ? String(shard) : segment))
    .join('/');
}

/** Every object of every table. */
export function everyTableGlob(): string {
  return `${tablesPrefix()}**`;
}

/**
 * A table's retention (docs/design.md, "Retention"): rows whose timestamp column is older
 * than `maxAgeSeconds` are never read, and the merge lane deletes them from the base. The
 * column is a timestamp, not nullable (a null would never expire), and so never a key column
 * (keys are integers or strings); an age under a minute is refused, since processes' clocks
 * are only that close.
 */
import type { TimestampUnit } from '../arrow/column-type.ts';
import type { TableSchema } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import { isPlainObject } from '../plain-object.ts';
import type { IndexDecl } from './index-decl.ts';

export const MIN_RETENTION_SECONDS = 60;

export interface Retention {
  readonly column: string;
  readonly maxAgeSeconds: number;
}

const KEYS = new Set(['column', 'maxAgeSeconds']);
const SEND = `send {"column": <a timestamp column, not nullable, not in the key>, "maxAgeSeconds": <an integer ≥ ${MIN_RETENTION_SECONDS}>}`;

/** A create body's `retention`, or null when it has none. */
export function parseRetention(input: unknown, schema: TableSchema): Retention | null {
  if (input === undefined || input === null) return null;
  if (!isPlainObject(input)) throw invalid(`retention must be an object; ${SEND}`);
  const unknown = Object.keys(input).find((key) => !KEYS.has(key));
  if (unknown !== undefined) throw invalid(`unknown retention property "${unknown}"; ${SEND}`);
  const { column, maxAgeSeconds } = input;
  const field = schema.fields.find((f) => f.name === column);
  if (typeof column !== 'string' || !field) {
    throw invalid(`retention.column must name a column of the table; ${SEND}`);
  }
  if (field.type.kind !== 'timestamp') {
    throw invalid(`retention.column ${column} is not a timestamp; ${SEND}`);
  }
  if (field.nullable)
    throw invalid(`retention.column ${column} is nullable, and a null never expires; ${SEND}`);
  if (
    typeof maxAgeSeconds !== 'number' ||
    !Number.isSafeInteger(maxAgeSeconds) ||
    maxAgeSeconds < MIN_RETENTION_SECONDS
  ) {
    throw invalid(`retention.maxAgeSeconds must be an integer ≥ ${MIN_RETENTION_SECONDS}; ${SEND}`);
  }
  return { column, maxAgeSeconds };
}

/** Retention's filters and deletes are on its column: it gets a btree index unless one is declared on it. */
export function withRetentionIndex(indexes: IndexDecl[], retention: Retention | null): IndexDecl[] {
  if (!retention || indexes.some((d) => d.column === retention.column)) return indexes;
  return [...indexes, { column: retention.column, type: 'btree' }];
}

/** The retention column of a table that has retention, and its unit. */
export function retentionColumn(
  retention: Retention,
  schema: TableSchema,
): { column: string; unit: TimestampUnit } {
  const field = schema.fields.find((f) => f.name === retention.column);
  if (field?.type.kind !== 'timestamp') {
    throw new SluiceError('INVALID_SETTINGS', `retention column ${retention.column} is not a timestamp`, {
      setting: 'retention',
    });
  }
  return { column: retention.column, unit: field.type.unit };
}

function invalid(reason: string): SluiceError {
  return new SluiceError('INVALID_SETTINGS', `invalid retention: ${reason}`, {
    setting: 'retention',
    reason,
  });
}

/**
 * A column's default: the value a write that leaves the column out gets, and the value every
 * row stored before the column existed reads (docs/design.md, "Schema evolution"). Scalars
 * of the number, bool and utf8 types only: a default for a timestamp, binary or vector column
 * is refused, as is one not of the column's type.
 */
import { type Data, type DataType, vectorFromArray } from 'apache-arrow';
import { type ColumnType, columnTypeOfArrow, formatColumnType } from './column-type.ts';
import { expectedJson, toFloat32, toFloat64, toInt32, toInt64BigInt, toUtf8String } from './json-scalars.ts';

/** The field metadata key under which an Arrow schema of the table carries a default, as JSON. */
export const DEFAULT_KEY = 'sluice.default';

export type DefaultCheck = { ok: true; value: unknown } | { ok: false; reason: string };

/** The default as the column's JSON form takes it, checked against the column's type. */
export function parseDefault(type: ColumnType, input: unknown): DefaultCheck {
  const value = arrowValue(type, input);
  if (value === 'unsupported') {
    return { ok: false, reason: `a ${formatColumnType(type)} column cannot have a default: add it nullable` };
  }
  if (value === undefined || value === null) {
    return { ok: false, reason: `default must be ${expectedJson(type)}, got ${JSON.stringify(input)}` };
  }
  return { ok: true, value: input };
}

/** The default as Arrow JS builds it into a column of `type`. */
export function arrowValue(type: ColumnType, input: unknown): unknown {
  switch (type.kind) {
    case 'int32':
      return toInt32(input);
    case 'int64':
      return toInt64BigInt(input);
    case 'float32':
      return toFloat32(input);
    case 'float64':
      return toFloat64(input);
    case 'bool':
      return typeof input === 'boolean' ? input : undefined;
    case 'utf8':
      return toUtf8String(input);
    default:
      return 'unsupported';
  }
}

/** The default as a Lance SQL literal of the column's type, for the base to fill its rows with. */
export function sqlLiteral(type: ColumnType, input: unknown): string {
  const value = arrowValue(type, input);
  switch (type.kind) {
    case 'int32':
      return `CAST(${value} AS INT)`;
    case 'int64':
      return `CAST(${value} AS BIGINT)`;
    case 'float32':
    case 'float64':
      return `CAST('${value}' AS ${type.kind === 'float32' ? 'FLOAT' : 'DOUBLE'})`;
    case 'bool':
      return value ? 'true' : 'false';
    default:
      return `'${String(value).replaceAll("'", "''")}'`;
  }
}

/**
 * A column of `length` rows of `type` (the column's Arrow type), each the default a field of
 * the table's Arrow schema carries (`DEFAULT_KEY`), or each null when it carries none.
 */
export function defaultData(field: { type: DataType; metadata: Map<string, string> }, length: number): Data {
  const json = field.metadata.get(DEFAULT_KEY);
  const kind = json === undefined ? null : columnTypeOfArrow(field.type);
  const value = json === undefined || kind === null ? null : arrowValue(kind, JSON.parse(json));
  return vectorFromArray(new Array<unknown>(length).fill(value), field.type).data[0]!;
}

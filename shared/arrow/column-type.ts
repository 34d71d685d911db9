/**
 * The column types (docs/design.md, "Column types") as a closed union, their text form (what clients send
 * in `schema.fields[].type` and what `table.json` stores) and their one Arrow mapping.
 */
import {
  Binary,
  Bool,
  DataType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Int64,
  Precision,
  Timestamp,
  TimeUnit,
  Utf8,
} from 'apache-arrow';

export type TimestampUnit = 'ms' | 'us';

export type ColumnType =
  | { readonly kind: 'int32' }
  | { readonly kind: 'int64' }
  | { readonly kind: 'float32' }
  | { readonly kind: 'float64' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'utf8' }
  | { readonly kind: 'binary' }
  | { readonly kind: 'timestamp'; readonly unit: TimestampUnit }
  | { readonly kind: 'vector'; readonly dim: number };

export type ColumnKind = ColumnType['kind'];

/** Types a primary-key column may have: the ones with an order-preserving byte encoding. */
export type KeyKind = 'int32' | 'int64' | 'utf8';

/** Far above any embedding model in use, low enough that one row stays a sane size (256 KiB). */
export const MAX_VECTOR_DIM = 65_536;

export type TypeParse = { ok: true; type: ColumnType } | { ok: false; reason: string };

const SCALARS: ReadonlyMap<string, ColumnType> = new Map<string, ColumnType>([
  ['int32', { kind: 'int32' }],
  ['int64', { kind: 'int64' }],
  ['float32', { kind: 'float32' }],
  ['float64', { kind: 'float64' }],
  ['bool', { kind: 'bool' }],
  ['utf8', { kind: 'utf8' }],
  ['binary', { kind: 'binary' }],
]);

const TIMESTAMP = /^timestamp\[\s*([a-z]*)\s*\]$/;
const VECTOR = /^vector\[\s*([a-z0-9]*)\s*,\s*([+-]?[0-9]+)\s*\]$/;
const KNOWN = 'int32 int64 float32 float64 bool utf8 binary timestamp[ms] timestamp[us] vector[float32, DIM]';

export function parseColumnType(text: unknown): TypeParse {
  if (typeof text !== 'string') return { ok: false, reason: `type must be a string, one of: ${KNOWN}` };
  const scalar = SCALARS.get(text);
  if (scalar) return { ok: true, type: scalar };
  const ts = TIMESTAMP.exec(text);
  if (ts) {
    const unit = ts[1];
    if (unit === 'ms' || unit === 'us') return { ok: true, type: { kind: 'timestamp', unit } };
    return { ok: false, reason: `timestamp unit must be ms or us, got "${unit}"` };
  }
  const vec = VECTOR.exec(text);
  if (vec) {
    if (vec[1] !== 'float32')
      return { ok: false, reason: `vector elements must be float32, got "${vec[1]}"` };
    const dim = Number(vec[2]);
    if (dim < 1) return { ok: false, reason: `vector dimension must be at least 1, got ${vec[2]}` };
    if (dim > MAX_VECTOR_DIM) {
      return { ok: false, reason: `vector dimension must be at most ${MAX_VECTOR_DIM}, got ${vec[2]}` };
    }
    return { ok: true, type: { kind: 'vector', dim } };
  }
  return { ok: false, reason: `unknown type "${text}", expected one of: ${KNOWN}` };
}

/** The canonical text form; `parseColumnType(formatColumnType(t))` gives `t` back. */
export function formatColumnType(type: ColumnType): string {
  switch (type.kind) {
    case 'timestamp':
      return `timestamp[${type.unit}]`;
    case 'vector':
      return `vector[float32, ${type.dim}]`;
    default:
      return type.kind;
  }
}

export function isKeyKind(kind: ColumnKind): kind is KeyKind {
  return kind === 'int32' || kind === 'int64' || kind === 'utf8';
}

/** Vector elements are a nullable `item` field, as pyarrow and Lance write fixed-size lists. */
function vectorElementField(): Field<Float32> {
  return new Field('item', new Float32(), true);
}

export function toArrowType(type: ColumnType): DataType {
  switch (type.kind) {
    case 'int32':
      return new Int32();
    case 'int64':
      return new Int64();
    case 'float32':
      return new Float32();
    case 'float64':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'utf8':
      return new Utf8();
    case 'binary':
      return new Binary();
    case 'timestamp':
      // As the IPC reader builds it (base class, null time zone): util.compareTypes compares constructors and zones.
      return new Timestamp(type.unit === 'ms' ? TimeUnit.MILLISECOND : TimeUnit.MICROSECOND, null);
    case 'vector':
      return new FixedSizeList(type.dim, vectorElementField());
  }
}

/**
 * The column type an Arrow type stands for, or null when it has none (large or view
 * strings, dictionaries, time zones, other units…). Vector element nullability and field
 * name are not part of the type: writers differ there and the bytes are the same.
 */
export function columnTypeOfArrow(type: DataType): ColumnType | null {
  if (DataType.isInt(type)) {
    if (!type.isSigned) return null;
    if (type.bitWidth === 32) return { kind: 'int32' };
    if (type.bitWidth === 64) return { kind: 'int64' };
    return null;
  }
  if (DataType.isFloat(type)) {
    if (type.precision === Precision.SINGLE) return { kind: 'float32' };
    if (type.precision === Precision.DOUBLE) return { kind: 'float64' };
    return null;
  }
  if (DataType.isBool(type)) return { kind: 'bool' };
  if (DataType.isUtf8(type)) return { kind: 'utf8' };
  if (DataType.isBinary(type)) return { kind: 'binary' };
  if (DataType.isTimestamp(type)) {
    if (type.timezone) return null;
    if (type.unit === TimeUnit.MILLISECOND) return { kind: 'timestamp', unit: 'ms' };
    if (type.unit === TimeUnit.MICROSECOND) return { kind: 'timestamp', unit: 'us' };
    return null;
  }
  if (DataType.isFixedSizeList(type)) {
    const element = type.children[0]?.type;
    if (!element || !DataType.isFloat(element) || element.precision !== Precision.SINGLE) return null;
    return { kind: 'vector', dim: type.listSize };
  }
  return null;
}

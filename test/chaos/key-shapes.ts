/**
 * The chaos run's tables, one per key shape: a utf8 key (with quotes, backslashes and
 * non-ASCII among its values), an int64 key with the type's edge values, and a composite
 * (utf8, int64) key. Every key has an id, `{table}:{canonical JSON}`, under which the
 * history records its writes and reads, whatever its shape.
 */
import { compareBytes, keyCodecFor } from '../../shared/arrow/key-codec.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import type { FinalRow } from './history.ts';

export type KeyInput = string | number | Array<string | number>;

export interface KeyShape {
  readonly name: 'utf8' | 'int64' | 'composite';
  readonly table: string;
  /** The `schema` and `primaryKey` of the create request. */
  readonly schema: { fields: Array<{ name: string; type: string; nullable: boolean }>; primaryKey: string[] };
  /** Every key the clients write, as JSON key inputs, in the table's key order. */
  readonly keys: readonly KeyInput[];
  /** The row of `key` holding `value`. */
  rowOf(key: KeyInput, value: string): Record<string, unknown>;
  /** The history id of the key of `row`, a row as the API answers it. */
  idOfRow(row: Record<string, unknown>): string;
  idOf(key: KeyInput): string;
}

const INT64_EDGES = ['-9223372036854775808', '9223372036854775807', '-9007199254740993', '9007199254740993'];

function utf8Keys(count: number): string[] {
  const odd = ["o'k", 'back\\slash', 'new\nline', '😀', '', 'naïve "q"'];
  return Array.from({ length: count }, (_, i) =>
    i < odd.length ? `${odd[i]}${i}` : `k${String(i).padStart(4, '0')}`,
  );
}

function int64Keys(count: number): KeyInput[] {
  const small = Array.from({ length: count - INT64_EDGES.length }, (_, i) => (i % 2 ? -1 : 1) * i * 7919);
  return [...INT64_EDGES, ...small];
}

function compositeKeys(count: number): KeyInput[] {
  const tenants = ['', "o'k", 'tenant-a', 'ü'];
  const ns = [
    '-9223372036854775808',
    ...Array.from({ length: Math.ceil(count / tenants.length) }, (_, i) => i - 3),
  ];
  return tenants.flatMap((t) => ns.map((n) => [t, n])).slice(0, count);
}

function shape(
  name: KeyShape['name'],
  table: string,
  key: Array<{ name: string; type: string }>,
  keys: KeyInput[],
): KeyShape {
  const schema = {
    fields: [...key.map((c) => ({ ...c, nullable: false })), { name: 'v', type: 'utf8', nullable: true }],
    primaryKey: key.map((c) => c.name),
  };
  const codec = keyCodecFor(parseTableSchema({ fields: schema.fields }, schema.primaryKey));
  const canonical = (values: unknown[]) => JSON.stringify(values.map((v) => String(v)));
  const idOf = (input: KeyInput) => `${table}:${canonical(codec.parse(input))}`;
  const encoded = (input: KeyInput) => codec.encode(codec.parse(input));
  const sorted = [...keys].sort((a, b) => compareBytes(encoded(a), encoded(b)));
  return {
    name,
    table,
    schema,
    keys: sorted,
    rowOf(input, value) {
      const values = Array.isArray(input) ? input : [input];
      return Object.fromEntries([...key.map((c, i) => [c.name, values[i]]), ['v', value]]);
    },
    idOfRow(row) {
      const values = key.map((c) => row[c.name]);
      return idOf((key.length === 1 ? values[0] : values) as KeyInput);
    },
    idOf,
  };
}

export function keyShapes(keySpace: number): KeyShape[] {
  return [
    shape('utf8', 'chaos', [{ name: 'k', type: 'utf8' }], utf8Keys(keySpace)),
    shape('int64', 'chaos_int64', [{ name: 'k', type: 'int64' }], int64Keys(keySpace)),
    shape(
      'composite',
      'chaos_pair',
      [
        { name: 't', type: 'utf8' },
        { name: 'n', type: 'int64' },
      ],
      compositeKeys(keySpace),
    ),
  ];
}

/** The history's view of an API row. */
export function finalRow(shape: KeyShape, row: Record<string, unknown>): FinalRow {
  return { k: shape.idOfRow(row), v: (row.v as string | null) ?? null };
}

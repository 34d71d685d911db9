/**
 * The key range of a scan, `[from, to)`: `from` inclusive, `to` exclusive, either open. Keys
 * are given as clients give any key (see KeyCodec.parse) and compared as their encodings,
 * which order as the key tuples do.
 */
import { compareBytes, type KeyValue, keyCodecFor } from '../arrow/key-codec.ts';
import { SluiceError } from '../errors.ts';
import { assertHasKey, type TableDef } from '../table/table-def.ts';

export interface KeyBound {
  values: KeyValue[];
  encoded: Uint8Array;
}

export interface KeyRange {
  from: KeyBound | null;
  to: KeyBound | null;
}

export const FULL_RANGE: KeyRange = { from: null, to: null };

export function parseKeyRange(table: TableDef, input: { from?: unknown; to?: unknown }): KeyRange {
  if (input.from === undefined && input.to === undefined) return FULL_RANGE;
  assertHasKey(table, 'a key range');
  const codec = keyCodecFor(table.schema);
  const bound = (value: unknown): KeyBound | null => {
    if (value === undefined) return null;
    const values = codec.parse(value);
    return { values, encoded: codec.encode(values) };
  };
  const range = { from: bound(input.from), to: bound(input.to) };
  if (range.from && range.to && compareBytes(range.from.encoded, range.to.encoded) > 0) {
    throw new SluiceError(
      'INVALID_REQUEST',
      'from is after to: from is the first key wanted, to the first not',
      {
        table: table.name,
      },
    );
  }
  return range;
}

export function inRange(range: KeyRange, key: Uint8Array): boolean {
  return (
    (!range.from || compareBytes(key, range.from.encoded) >= 0) &&
    (!range.to || compareBytes(key, range.to.encoded) < 0)
  );
}

/** The bounds as hex of their encodings: what a scan cursor records to refuse a page of another range. */
export function rangeId(range: KeyRange): [string | null, string | null] {
  const hex = (bound: KeyBound | null) => (bound ? Buffer.from(bound.encoded).toString('hex') : null);
  return [hex(range.from), hex(range.to)];
}

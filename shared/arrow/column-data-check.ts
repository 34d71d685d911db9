/**
 * Checks that a decoded column's buffers can hold what its metadata claims. Arrow JS
 * takes buffer regions from client-supplied metadata and slices without checking, so a
 * garbled stream could otherwise carry short buffers, offsets past the data, nulls in a
 * non-nullable column or utf8 that is not UTF-8 — and be written to the WAL as is.
 *
 * As in Arrow JS, value buffers and offsets are indexed by row from 0 (slicing slices
 * them); validity and bool bitmaps are indexed from `data.offset`.
 */
import { isUtf8 } from 'node:buffer';
import type { Data } from 'apache-arrow';
import type { ColumnDef } from './schema.ts';

function bitmapBytes(bits: number): number {
  return (bits + 7) >> 3;
}

function isValid(bitmap: Uint8Array, index: number): boolean {
  return ((bitmap[index >> 3]! >> (index & 7)) & 1) === 1;
}

function offsetsProblem(data: Data, utf8: boolean): string | null {
  const offsets = data.valueOffsets as Int32Array | undefined;
  const bytes = data.values as Uint8Array | undefined;
  const { length } = data;
  if (!offsets || offsets.length < length + 1 || !bytes) return 'offsets buffer too short';
  const first = offsets[0]!;
  if (first < 0) return 'negative value offset';
  for (let row = 0; row < length; row++) {
    if (offsets[row + 1]! < offsets[row]!) return 'value offsets decrease';
  }
  const last = offsets[length]!;
  if (last > bytes.length) return 'value offsets point past the data buffer';
  if (!utf8) return null;
  if (!isUtf8(bytes.subarray(first, last))) return 'utf8 data is not valid UTF-8';
  // In valid UTF-8, a value may only start where a character starts.
  for (let row = 0; row < length; row++) {
    const start = offsets[row]!;
    if (start < last && (bytes[start]! & 0xc0) === 0x80) return 'a utf8 value starts inside a character';
  }
  return null;
}

function vectorProblem(data: Data, dim: number): string | null {
  const child = data.children[0];
  const values = child?.values as Float32Array | undefined;
  if (!child || !values || values.length < data.length * dim) return 'vector values buffer too short';
  if (child.nullCount <= 0) return null;
  const childBitmap = child.nullBitmap;
  if (!childBitmap || childBitmap.length < bitmapBytes(child.offset + data.length * dim)) {
    return 'vector validity buffer too short';
  }
  const bitmap = data.nullCount > 0 ? data.nullBitmap : undefined;
  for (let row = 0; row < data.length; row++) {
    if (bitmap && !isValid(bitmap, data.offset + row)) continue;
    for (let i = 0; i < dim; i++) {
      if (!isValid(childBitmap, child.offset + row * dim + i)) return 'a non-null vector has null elements';
    }
  }
  return null;
}

/** Why the column's data is unusable, or null when every buffer is in bounds and consistent. */
export function columnDataProblem(column: ColumnDef, data: Data): string | null {
  if (data.nullCount > 0) {
    if (!column.nullable) return 'null values in a non-nullable column';
    if (!data.nullBitmap || data.nullBitmap.length < bitmapBytes(data.offset + data.length)) {
      return 'validity buffer too short';
    }
  }
  const { type } = column;
  switch (type.kind) {
    case 'bool': {
      const bits = data.values as Uint8Array | undefined;
      return bits && bits.length >= bitmapBytes(data.offset + data.length) ? null : 'values buffer too short';
    }
    case 'utf8':
      return offsetsProblem(data, true);
    case 'binary':
      return offsetsProblem(data, false);
    case 'vector':
      return vectorProblem(data, type.dim);
    default: {
      const values = data.values as ArrayLike<unknown> | undefined;
      return values && values.length >= data.length ? null : 'values buffer too short';
    }
  }
}

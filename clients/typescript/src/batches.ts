/**
 * Large writes cut into requests the server takes: at most `maxRows` rows and, as far as
 * one row allows, `maxBytes` bytes of body each (the server refuses more with 413).
 */
import { type Table, tableToIPC } from 'apache-arrow';
import type { Row } from './types.ts';

export interface BatchLimits {
  maxRows: number;
  maxBytes: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxRows: 10_000, maxBytes: 8 * 1024 * 1024 };

export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';

export interface Batch {
  rows: number;
  body: Uint8Array;
  contentType: string;
}

const encoder = new TextEncoder();
/** int64 values read from Arrow are bigints; the API takes them as decimal strings. */
const replacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
const ENVELOPE_BYTES = '{"rows":[]}'.length;

export function* jsonBatches(rows: readonly Row[], limits: BatchLimits): Generator<Batch> {
  let parts: string[] = [];
  let bytes = ENVELOPE_BYTES;
  const cut = (): Batch => {
    const body = encoder.encode(`{"rows":[${parts.join(',')}]}`);
    const batch = { rows: parts.length, body, contentType: 'application/json' };
    parts = [];
    bytes = ENVELOPE_BYTES;
    return batch;
  };
  for (const row of rows) {
    const text = JSON.stringify(row, replacer);
    const size = Buffer.byteLength(text) + 1;
    if (parts.length > 0 && (parts.length >= limits.maxRows || bytes + size > limits.maxBytes)) yield cut();
    parts.push(text);
    bytes += size;
  }
  if (parts.length > 0) yield cut();
}

/** Slices of at most `maxRows` rows, halved again while an encoded slice is above `maxBytes`. */
export function* arrowBatches(table: Table, limits: BatchLimits): Generator<Batch> {
  for (let start = 0; start < table.numRows; start += limits.maxRows) {
    yield* fitted(table.slice(start, Math.min(start + limits.maxRows, table.numRows)), limits.maxBytes);
  }
}

function* fitted(slice: Table, maxBytes: number): Generator<Batch> {
  const body = tableToIPC(slice, 'stream');
  if (body.byteLength <= maxBytes || slice.numRows <= 1) {
    yield { rows: slice.numRows, body, contentType: ARROW_STREAM };
    return;
  }
  const half = Math.ceil(slice.numRows / 2);
  yield* fitted(slice.slice(0, half), maxBytes);
  yield* fitted(slice.slice(half), maxBytes);
}

/**
 * Cuts a sealed WAL range into generations. A long backlog becomes several generations of
 * at most `maxBytes` / `maxRows` each, never one oversized one; a single entry larger than
 * the limit still forms a generation of its own.
 */
import type { SealedGeneration } from './shard-manifest.ts';

export interface SealableEntry {
  seq: number;
  bytes: number;
  rows: number;
}

export function cutGenerations(input: {
  entries: SealableEntry[];
  firstGeneration: number;
  maxBytes: number;
  maxRows: number;
  sealedAt: string;
}): SealedGeneration[] {
  const generations: SealedGeneration[] = [];
  let current: SealedGeneration | null = null;
  for (const entry of input.entries) {
    const fits =
      current !== null &&
      current.walBytes + entry.bytes <= input.maxBytes &&
      current.walRows + entry.rows <= input.maxRows;
    if (current && fits) {
      current.walTo = entry.seq;
      current.walBytes += entry.bytes;
      current.walRows += entry.rows;
      continue;
    }
    current = {
      generation: input.firstGeneration + generations.length,
      walFrom: entry.seq,
      walTo: entry.seq,
      walRows: entry.rows,
      walBytes: entry.bytes,
      sealedAt: input.sealedAt,
    };
    generations.push(current);
  }
  return generations;
}

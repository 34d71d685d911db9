/**
 * Which shard a row belongs to. On a keyed table: FNV-1a (32-bit) over the row's encoded primary key
 * (`key-codec.ts`), modulo the table's shard count. Every process must agree on it
 * forever, or a key's writes would land in two WAL lanes and lose their order: it is
 * part of the storage format, pinned by fixed vectors in the tests, and simple enough to
 * reproduce in any language (offset basis 2166136261, prime 16777619, xor then multiply).
 */
import type { PackedKeys } from '../arrow/key-codec.ts';

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `bytes[from, to)`. */
export function fnv1a32(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = from; i < to; i++) {
    hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  }
  return hash >>> 0;
}

export function shardOf(encodedKey: Uint8Array, shards: number): number {
  assertShardCount(shards);
  return fnv1a32(encodedKey) % shards;
}

/**
 * The shard of each key of `keys`, as `shardOf` gives it, hashed where the keys lie packed:
 * a view per key cost a write of 1,000 rows more than the hashing did.
 */
export function shardsOfKeys(keys: PackedKeys, shards: number): Int32Array {
  assertShardCount(shards);
  const { bytes, offsets, count } = keys;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = fnv1a32(bytes, offsets[i]!, offsets[i + 1]!) % shards;
  return out;
}

function assertShardCount(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`shard count must be >= 1, got ${shards}`);
}

/**
 * The shard of a whole request to an append-only table: its rows are one entry, so the
 * request lands on every shard or none. Requests rotate over the shards from a random
 * start, so processes spread their writes without agreeing on anything.
 */
let nextShard = Math.floor(Math.random() * 1024);

export function shardOfRequest(shards: number): number {
  nextShard = (nextShard + 1) % 1_048_576;
  return nextShard % shards;
}

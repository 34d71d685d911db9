/**
 * Idempotent writes (`Idempotency-Key`). The first request with a key claims it in Redis
 * with a pending marker that holds the request's fingerprint; its ack then replaces the
 * marker and is kept for the TTL. Under the same key:
 * - the same fingerprint gets the first ack back and writes nothing;
 * - another fingerprint is IDEMPOTENCY_CONFLICT (409);
 * - a duplicate arriving while the first still runs waits for its ack, as long as the
 *   caller's signal allows (the HTTP request timeout), then answers like a late retry.
 * A first request that fails releases its marker, so a retry writes. One whose process
 * dies leaves a marker that expires after `pendingMs`; the retry then writes again, which
 * is harmless because upserts and deletes retried in full change nothing more.
 * Keys carry the table as their hash tag, like every other key of the table.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SluiceError } from './errors.ts';
import type { RedisClient } from './redis/connection.ts';
import { luaCommand, runLuaCommand } from './redis/lua-commands.ts';

export const IDEMPOTENCY_SETTLE = luaCommand<'marker', number>('idempotency-settle-1.lua', ['marker']);

const POLL_MS = 20;

interface Marker {
  fingerprint: string;
  /** Present on the pending marker only: who claimed the key. */
  owner?: string;
  /** Present once the first request has its ack. */
  result?: unknown;
}

export interface IdempotencyOptions {
  ttlSeconds: number;
  /** How long a claim lives without an ack: past the longest a write can take. */
  pendingMs: number;
}

export interface IdempotentRequest {
  table: string;
  key: string;
  /** What makes two requests "the same request": a hash of method, media type and body. */
  fingerprint: string;
}

export interface IdempotentOutcome<T> {
  result: T;
  /** True when `result` is the stored ack of an earlier request. */
  replayed: boolean;
}

export class IdempotencyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly options: IdempotencyOptions,
  ) {}

  redisKey(table: string, key: string): string {
    const digest = createHash('sha256').update(key).digest('hex');
    return `${this.prefix}:{${table}}:idempotency:${digest}`;
  }

  async run<T>(
    request: IdempotentRequest,
    write: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<IdempotentOutcome<T>> {
    const key = this.redisKey(request.table, request.key);
    const marker = JSON.stringify({ fingerprint: request.fingerprint, owner: randomUUID() } satisfies Marker);
    for (;;) {
      signal?.throwIfAborted();
      if (await this.redis.set(key, marker, 'PX', this.options.pendingMs, 'NX')) break;
      const held = await this.redis.get(key);
      // Gone between the two commands: the first request failed or its claim expired.
      if (held === null) continue;
      const current = JSON.parse(held) as Marker;
      if (current.fingerprint !== request.fingerprint) {
        throw new SluiceError(
          'IDEMPOTENCY_CONFLICT',
          'this Idempotency-Key was used for a different request; use a new key for new content',
          { table: request.table },
        );
      }
      if (current.result !== undefined) return { result: current.result as T, replayed: true };
      await sleep(POLL_MS, undefined, { signal });
    }
    let result: T;
    try {
      result = await write();
    } catch (err) {
      await runLuaCommand(this.redis, IDEMPOTENCY_SETTLE, { marker: key }, [marker, '', 0]);
      throw err;
    }
    const done = JSON.stringify({ fingerprint: request.fingerprint, result } satisfies Marker);
    await runLuaCommand(this.redis, IDEMPOTENCY_SETTLE, { marker: key }, [
      marker,
      done,
      this.options.ttlSeconds * 1000,
    ]);
    return { result, replayed: false };
  }
}

/**
 * Idempotent writes (`Idempotency-Key`). The first request with a key claims it in Redis
 * with a pending marker that holds the request's fingerprint; its ack then replaces the
 * marker and is kept for the TTL. Under the same key:
 * - the same fingerprint gets the first ack back and writes nothing;
 * - another fingerprint is IDEMPOTENCY_CONFLICT (409);
 * - a duplicate arriving while the first still runs waits for its ack, as long as the
 *   caller's signal allows (the HTTP request timeout), then answers like a late retry.
 * An upsert or a delete retried in full changes nothing more, so for them a first request
 * that fails releases its marker, and one whose process dies leaves a marker that expires
 * after `pendingMs`; the retry then writes again. An append retried so would land twice,
 * so a request that passes `settle` (I20, docs/design.md "Idempotent appends") keeps its
 * marker for the TTL with a lease of `pendingMs`, and notes each WAL put before making it;
 * a retry that finds the lease lapsed takes the marker over — the first writer can note
 * nothing more, so puts nothing more — and decides the noted puts at the store: one that
 * landed is replayed as the ack, and when none did the retry writes.
 * Keys carry the table as their hash tag, like every other key of the table.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SluiceError } from './errors.ts';
import type { RedisClient } from './redis/connection.ts';
import { luaCommand, runLuaCommand } from './redis/lua-commands.ts';
import type { NotedPut } from './wal/wal-entry.ts';

export const IDEMPOTENCY_SETTLE = luaCommand<'marker' | 'notes', number>('idempotency-settle-2.lua', [
  'marker',
  'notes',
]);
export const IDEMPOTENCY_NOTE = luaCommand<'marker' | 'notes', number>('idempotency-note-2.lua', [
  'marker',
  'notes',
]);

const POLL_MS = 20;

interface Marker {
  fingerprint: string;
  /** Present on the pending marker only: who claimed the key. */
  owner?: string;
  /** On a pending marker of a settled request: until when its writer is taken to be alive (ms since the epoch). */
  leaseUntil?: number;
  /** On a pending marker of a settled request: when the key was first claimed. */
  claimedAt?: number;
  /** Present once the first request has its ack. */
  result?: unknown;
}

export interface IdempotencyOptions {
  ttlSeconds: number;
  /** How long a claim lives without an ack: past the longest a write can take. */
  pendingMs: number;
  /**
   * How long after a claim its noted puts can still be decided at the store: WAL objects
   * are collected no sooner (half the GC grace: docs/design.md, "The seq floor").
   */
  settleWithinMs: number;
}

/** What a settled request's write is given: it notes each WAL put before making it. */
export interface Claim {
  /** Rejects with WRITE_ABANDONED when a retry took the key over: the put must not be made. */
  note(put: NotedPut): Promise<void>;
}

/** How a retry decides the noted puts of a writer that went away: the ack of the one that landed, or null. */
export type SettleNotes<T> = (notes: NotedPut[]) => Promise<T | null>;

export interface IdempotentRequest<T = unknown> {
  table: string;
  key: string;
  /** What makes two requests "the same request": a hash of method, media type and body. */
  fingerprint: string;
  /** Given for writes that must not land twice (appends); see the module comment. */
  settle?: SettleNotes<T>;
}

export interface IdempotentOutcome<T> {
  result: T;
  /** True when `result` is the stored ack of an earlier request. */
  replayed: boolean;
}

interface KeyPair {
  marker: string;
  notes: string;
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
    request: IdempotentRequest<T>,
    write: (claim: Claim | null) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<IdempotentOutcome<T>> {
    const marker = this.redisKey(request.table, request.key);
    const keys = { marker, notes: `${marker}:notes` };
    let mine = this.freshMarker(request, Date.now());
    for (;;) {
      signal?.throwIfAborted();
      if (await this.redis.set(keys.marker, mine, 'PX', this.claimMs(request), 'NX')) break;
      const held = await this.redis.get(keys.marker);
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
      // A marker without a lease (written by a process that does not note its puts) is
      // waited out, as before: its writer's put could not be decided.
      if (request.settle && current.leaseUntil !== undefined && current.leaseUntil < Date.now()) {
        const taken = await this.takeOver(request, request.settle, keys, held, current);
        if (taken === null) continue;
        if (taken.kind === 'landed') return { result: taken.result, replayed: true };
        mine = taken.marker;
        break;
      }
      await sleep(POLL_MS, undefined, { signal });
    }
    return { result: await this.writeAsOwner(request, write, keys, mine), replayed: false };
  }

  private async writeAsOwner<T>(
    request: IdempotentRequest<T>,
    write: (claim: Claim | null) => Promise<T>,
    keys: KeyPair,
    mine: string,
  ): Promise<T> {
    let noted = false;
    const claim: Claim | null = request.settle
      ? {
          note: async (put) => {
            noted = true;
            const held = await runLuaCommand(this.redis, IDEMPOTENCY_NOTE, keys, [mine, JSON.stringify(put)]);
            if (held === 1) return;
            throw new SluiceError(
              'WRITE_ABANDONED',
              'the write took too long and a retry of it took over; its answer is the retry’s',
              { table: request.table },
            );
          },
        }
      : null;
    let result: T;
    try {
      result = await write(claim);
    } catch (err) {
      // A noted put may have landed all the same: the marker stays, its lease lapsed, and
      // the retry decides it at the store. A write that noted nothing wrote nothing.
      if (noted) await this.settleKey(keys, mine, lapsed(mine), this.claimMs(request), 'keep');
      else await this.settleKey(keys, mine, '', 0, 'drop');
      throw err;
    }
    const done = JSON.stringify({ fingerprint: request.fingerprint, result } satisfies Marker);
    await this.settleKey(keys, mine, done, this.options.ttlSeconds * 1000, 'drop');
    return result;
  }

  /**
   * The key of a writer whose lease lapsed: taken over first, so that it notes and puts
   * nothing more, then its noted puts decided. Null when another retry changed the key first.
   */
  private async takeOver<T>(
    request: IdempotentRequest<T>,
    settle: SettleNotes<T>,
    keys: KeyPair,
    held: string,
    current: Marker,
  ): Promise<{ kind: 'landed'; result: T } | { kind: 'write'; marker: string } | null> {
    const claimedAt = current.claimedAt ?? Date.now();
    const mine = this.freshMarker(request, claimedAt);
    if (!(await this.settleKey(keys, held, mine, this.claimMs(request), 'keep'))) return null;
    const notes = (await this.redis.lrange(keys.notes, 0, -1)).map((n) => JSON.parse(n) as NotedPut);
    let landed: T | null = null;
    try {
      if (notes.length > 0 && Date.now() - claimedAt > this.options.settleWithinMs) {
        throw new SluiceError(
          'IDEMPOTENCY_UNSETTLED',
          'the first attempt of this request went unanswered too long ago to be decided; read the table for its rows, and send it again under a new Idempotency-Key if they are missing',
          { table: request.table },
        );
      }
      if (notes.length > 0) landed = await settle(notes);
    } catch (err) {
      await this.settleKey(keys, mine, lapsed(mine), this.claimMs(request), 'keep');
      throw err;
    }
    if (landed !== null) {
      const done = JSON.stringify({ fingerprint: request.fingerprint, result: landed } satisfies Marker);
      await this.settleKey(keys, mine, done, this.options.ttlSeconds * 1000, 'drop');
      return { kind: 'landed', result: landed };
    }
    // None landed, and none ever will: the write is this retry's to make.
    await this.settleKey(keys, mine, mine, this.claimMs(request), 'drop');
    return { kind: 'write', marker: mine };
  }

  private freshMarker(request: IdempotentRequest<unknown>, claimedAt: number): string {
    const marker: Marker = { fingerprint: request.fingerprint, owner: randomUUID() };
    if (request.settle) Object.assign(marker, { leaseUntil: Date.now() + this.options.pendingMs, claimedAt });
    return JSON.stringify(marker);
  }

  /** A settled request's marker lives as long as its ack would, so its notes outlive its writer. */
  private claimMs(request: IdempotentRequest<unknown>): number {
    return request.settle ? this.options.ttlSeconds * 1000 : this.options.pendingMs;
  }

  private async settleKey(
    keys: KeyPair,
    held: string,
    value: string,
    ttlMs: number,
    notes: 'keep' | 'drop',
  ): Promise<boolean> {
    return (await runLuaCommand(this.redis, IDEMPOTENCY_SETTLE, keys, [held, value, ttlMs, notes])) === 1;
  }
}

/** The same marker with its lease over: the next retry decides its notes at once. */
function lapsed(marker: string): string {
  return JSON.stringify({ ...(JSON.parse(marker) as Marker), leaseUntil: 0 });
}

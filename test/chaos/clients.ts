/**
 * The chaos run's clients: each upserts and deletes a few keys of one table's small key
 * space over HTTP (a table of each key shape, picked per write), one request at a time,
 * until told to stop, and records every attempt and how the write ended. Some writes carry an Idempotency-Key and are retried, the same request each
 * time, until one attempt gets an answer that settles it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Attempt, type Outcome, outcomeOf, type WriteRecord } from './history.ts';
import type { KeyShape } from './key-shapes.ts';

/** Longer than the API's request timeout: the server answers first unless it is gone. */
const CLIENT_TIMEOUT_MS = 15_000;
const IDEMPOTENT_ATTEMPTS = 4;

export interface ClientOptions {
  client: number;
  apiUrl: string;
  token: string;
  shapes: readonly KeyShape[];
  random: () => number;
  stopped: () => boolean;
  record: (write: WriteRecord) => void;
}

export async function runClient(options: ClientOptions): Promise<void> {
  const { random } = options;
  for (let n = 0; !options.stopped(); n += 1) {
    const id = `c${options.client}.${n}`;
    const shape = options.shapes[Math.floor(random() * options.shapes.length)]!;
    const keys = [
      ...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => keyOf(shape, random))),
    ];
    const kind = random() < 0.75 ? 'upsert' : 'delete';
    const idempotencyKey = random() < 0.4 ? `chaos-${id}` : null;
    const value = kind === 'upsert' ? id : null;
    const body = kind === 'upsert' ? { rows: keys.map((k) => shape.rowOf(k, id)) } : { keys };
    const method = kind === 'upsert' ? 'POST' : 'DELETE';
    const ended = endOf(await sendSettled(options, { table: shape.table, method, body, idempotencyKey }));
    options.record({ id, kind, keys: keys.map((k) => shape.idOf(k)), value, idempotencyKey, ...ended });
    await backOff(ended.outcome, random);
  }
}

/** How a write's attempts ended, as the history records it. */
export function endOf(
  attempts: Attempt[],
): Pick<WriteRecord, 'attempts' | 'outcome' | 'startedAt' | 'ackedAt'> {
  return {
    attempts,
    outcome: outcomeOf(attempts),
    startedAt: attempts[0]!.startedAt,
    ackedAt: attempts.find((a) => a.status === 200)?.endedAt ?? null,
  };
}

/** A well-behaved client slows down when told to, or when the service is not there. */
export async function backOff(outcome: Outcome, random: () => number): Promise<void> {
  if (outcome !== 'acked') await sleep(50 + random() * 250);
}

export interface WriteRequest {
  table: string;
  method: 'POST' | 'DELETE';
  body: unknown;
  idempotencyKey: string | null;
}

/**
 * Sends `request` once, or, when it carries an Idempotency-Key, again (the same request)
 * until an attempt gets an answer that settles it; every attempt, in order.
 */
export async function sendSettled(
  options: Pick<ClientOptions, 'apiUrl' | 'token' | 'random'>,
  request: WriteRequest,
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let tries = request.idempotencyKey ? IDEMPOTENT_ATTEMPTS : 1; tries > 0; tries -= 1) {
    const attempt = await send(options, request);
    attempts.push(attempt);
    if (outcomeOf([attempt]) !== 'indeterminate') break;
    await sleep(100 + options.random() * 400);
  }
  return attempts;
}

function keyOf(shape: KeyShape, random: () => number) {
  return shape.keys[Math.floor(random() * shape.keys.length)]!;
}

async function send(
  options: Pick<ClientOptions, 'apiUrl' | 'token'>,
  { table, method, body, idempotencyKey }: WriteRequest,
): Promise<Attempt> {
  const startedAt = performance.now();
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    'content-type': 'application/json',
  };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  try {
    const response = await fetch(`${options.apiUrl}/v1/tables/${table}/rows`, {
      method,
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => null)) as { error?: { code?: string } } | null;
    const attempt: Attempt = { startedAt, endedAt: performance.now(), status: response.status };
    if (answer?.error?.code) attempt.error = answer.error.code;
    return attempt;
  } catch (err) {
    return { startedAt, endedAt: performance.now(), status: null, error: errorCode(err) };
  }
}

/** The system error code under fetch's "fetch failed" (ECONNREFUSED, ECONNRESET, …), or the error's name. */
export function errorCode(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return err instanceof Error ? err.name : String(err);
}

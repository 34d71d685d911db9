/**
 * Steady write load for the failure tests: writers that each upsert fresh keys, one small
 * batch at a time, and retry a failed batch until it is acked, as a client would (so in
 * the end every row written was acked, unless retries were still failing well after stop). Every ack is kept with the seq it got on each
 * shard and the time of its first try, every failed try with its time and code.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { type ErrorCode, toSluiceError } from '../../shared/errors.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { eventRows, writeRows } from './rows.ts';

const RETRY_PAUSE_MS = 50;
/** After `stop()`, how long a failing batch is still retried: a broken cluster must not hang the test's cleanup. */
const RETRY_AFTER_STOP_MS = 30_000;

export interface Ack {
  rows: JsonRow[];
  shards: Array<{ shard: number; seq: number }>;
  firstTriedAt: number;
  at: number;
}

export interface WriteFailure {
  ids: number[];
  /** When the failed try was sent, and when its error came back. */
  triedAt: number;
  at: number;
  /** The code an HTTP client would have been answered with. */
  code: ErrorCode;
  message: string;
}

export interface WriteLoad {
  readonly acks: Ack[];
  readonly failures: WriteFailure[];
  /** Acks that touched `shard` after time `since`. */
  acksOn(shard: number, since?: number): Ack[];
  /** Every acked row, by id. */
  ackedRows(): JsonRow[];
  /** Stops taking new keys; a batch still failing is retried until acked, for a while. */
  stop(): Promise<void>;
}

export function startWriteLoad(
  sluice: Sluice,
  table: string,
  options: { writers: number; rowsPerWrite: number; pauseMs?: number },
): WriteLoad {
  const acks: Ack[] = [];
  const failures: WriteFailure[] = [];
  let next = 1;
  let stopping = false;
  let stoppedAt = Number.POSITIVE_INFINITY;
  const writeUntilAcked = async (rows: JsonRow[]) => {
    const firstTriedAt = Date.now();
    for (;;) {
      const triedAt = Date.now();
      try {
        const result = await writeRows(sluice, table, rows);
        acks.push({ rows, shards: result.shards, firstTriedAt, at: Date.now() });
        return;
      } catch (err) {
        failures.push({
          ids: rows.map((r) => r.id as number),
          triedAt,
          at: Date.now(),
          code: toSluiceError(err).code,
          message: (err as Error).message,
        });
        if (Date.now() - stoppedAt > RETRY_AFTER_STOP_MS) return;
        await sleep(RETRY_PAUSE_MS);
      }
    }
  };
  const writer = async () => {
    while (!stopping) {
      const from = next;
      next += options.rowsPerWrite;
      await writeUntilAcked(eventRows(from, from + options.rowsPerWrite - 1));
      if (options.pauseMs) await sleep(options.pauseMs);
    }
  };
  const running = Array.from({ length: options.writers }, writer);
  return {
    acks,
    failures,
    acksOn: (shard, since = 0) => acks.filter((a) => a.at > since && a.shards.some((s) => s.shard === shard)),
    ackedRows: () => acks.flatMap((a) => a.rows).sort((a, b) => (a.id as number) - (b.id as number)),
    async stop() {
      stopping = true;
      stoppedAt = Date.now();
      await Promise.all(running);
    },
  };
}

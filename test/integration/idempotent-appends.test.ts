/**
 * I20 on a real store and Redis: a request to an append-only table retried under its
 * Idempotency-Key lands once even when its first writer went away — after its put landed,
 * or before its put did — because the retry decides the first writer's noted puts at the
 * store (shared/idempotency.ts, shared/wal/seq-decision.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, jsonRowsToRecordBatch, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { IdempotencyStore, type IdempotentRequest } from '../../shared/idempotency.ts';
import type { AppendResult } from '../../shared/wal/append.ts';
import { createHarness, type Harness } from '../support/harness.ts';

const TABLE = 'events';
const LEASE_MS = 300;

function rows(from: number, to: number): JsonRow[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ n: from + i, kind: 'click' }));
}

describe('idempotent appends: a retry settles what its first writer left (I20)', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
    await h.createTable({
      name: TABLE,
      schema: {
        fields: [
          { name: 'n', type: 'int64', nullable: false },
          { name: 'kind', type: 'utf8', nullable: false },
        ],
      },
      shards: 1,
    });
  });
  afterEach(() => h.close());

  function idempotency(settleWithinMs = 60_000) {
    return new IdempotencyStore(h.redis, h.namespace.prefix, {
      ttlSeconds: 60,
      pendingMs: LEASE_MS,
      settleWithinMs,
    });
  }

  const request: IdempotentRequest<AppendResult> = {
    table: TABLE,
    key: 'batch-7',
    fingerprint: 'f7',
    settle: (notes) => h.sluice.writes.settleNoted(TABLE, notes),
  };

  async function batchOf(values: JsonRow[]) {
    return jsonRowsToRecordBatch((await h.sluice.tables.describe(TABLE)).schema, values);
  }

  /** The write a route makes: the append, its puts noted through the claim. */
  function appending(values: JsonRow[]) {
    const write = async (claim: { note: (put: never) => Promise<void> } | null) => {
      write.calls++;
      return h.sluice.writes.append(TABLE, await batchOf(values), (put) => claim!.note(put as never));
    };
    write.calls = 0;
    return write;
  }

  async function tableRows(): Promise<JsonRow[]> {
    const def = await h.sluice.tables.describe(TABLE);
    const page = await h.sluice.reads.scan(TABLE, { limit: 1000, after: null });
    return tableToJsonRows(def.schema, page.rows).sort((a, b) => Number(a.n) - Number(b.n));
  }

  it('the writer dies after its put landed: the retry replays its ack and writes nothing', async () => {
    let firstAck: AppendResult | undefined;
    // The first writer's put lands, then its process is gone before the ack is kept.
    void idempotency().run(request, async (claim) => {
      firstAck = await h.sluice.writes.append(TABLE, await batchOf(rows(1, 5)), (put) => claim!.note(put));
      return new Promise<AppendResult>(() => {});
    });
    await expect.poll(() => firstAck).toBeDefined();
    const retry = appending(rows(1, 5));
    const outcome = await idempotency().run(request, retry);
    expect(outcome).toEqual({ result: firstAck, replayed: true });
    expect(retry.calls).toBe(0);
    expect(await tableRows()).toEqual(rows(1, 5));
    // The settled ack is kept: a later retry replays it at once.
    expect(await idempotency().run(request, retry)).toEqual({ result: firstAck, replayed: true });
  });

  it('the writer stalls before its put: the retry tombstones the noted seq and writes; the late put is WRITE_ABANDONED', async () => {
    const slowPut = h.store.inject({
      op: 'putIfAbsent',
      key: `tables/${TABLE}/shards/0/wal/*`,
      latencyMs: LEASE_MS * 4,
      times: 1,
    });
    const first = idempotency().run(request, appending(rows(1, 5)));
    first.catch(() => undefined);
    await expect.poll(() => slowPut.hits).toBe(1);
    const retry = appending(rows(1, 5));
    const outcome = await idempotency().run(request, retry);
    expect([outcome.replayed, retry.calls, outcome.result.shards]).toEqual([
      false,
      1,
      [{ shard: 0, seq: 2 }],
    ]);
    await expect(first).rejects.toMatchObject({ code: 'WRITE_ABANDONED' });
    expect(await tableRows()).toEqual(rows(1, 5));
    expect(await idempotency().run(request, retry)).toEqual({ result: outcome.result, replayed: true });
  });

  it('a writer that died before noting any put is simply replaced: the retry writes', async () => {
    void idempotency(1).run(request, () => new Promise<AppendResult>(() => {}));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const retry = appending(rows(1, 3));
    const outcome = await idempotency(1).run(request, retry);
    expect([outcome.replayed, retry.calls]).toEqual([false, 1]);
    expect(await tableRows()).toEqual(rows(1, 3));
  });

  it('a noted put too old to decide is IDEMPOTENCY_UNSETTLED, and nothing is written', async () => {
    let landed = false;
    void idempotency(1).run(request, async (claim) => {
      await h.sluice.writes.append(TABLE, await batchOf(rows(1, 5)), (put) => claim!.note(put));
      landed = true;
      return new Promise<AppendResult>(() => {});
    });
    await expect.poll(() => landed).toBe(true);
    const retry = appending(rows(1, 5));
    await expect(idempotency(1).run(request, retry)).rejects.toMatchObject({ code: 'IDEMPOTENCY_UNSETTLED' });
    await expect(idempotency(1).run(request, retry)).rejects.toMatchObject({ code: 'IDEMPOTENCY_UNSETTLED' });
    expect(retry.calls).toBe(0);
    expect(await tableRows()).toEqual(rows(1, 5));
  });
});

/**
 * I7: wherever a poisoned shard is refused — the write path, a read, a seal, a flush — the
 * refusal is one typed error that carries the poison record, durable or only cached.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isSluiceError } from '../../shared/errors.ts';
import { poison } from '../../shared/lsm/poison.ts';
import { type PoisonRecord, ShardPoisonedError } from '../../shared/shard-poison.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, writeRows } from '../support/rows.ts';

const REASON = { code: 'DATA_CORRUPT' as const, generation: 1, cause: 'test poison' };

async function refusal(work: Promise<unknown>): Promise<ShardPoisonedError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ShardPoisonedError);
  return err as ShardPoisonedError;
}

describe('the poisoned-shard error (I7)', () => {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('a durable poison refuses writes, reads, seals and flushes with the record it holds', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('durable'));
    await writeRows(h.sluice, 'durable', eventRows(1, 20));
    expect(await poison(h.parts, { table: 'durable', shard: 0 }, REASON)).toMatchObject({
      poisoned: true,
      durable: true,
    });

    const refusals = [
      await refusal(writeRows(h.sluice, 'durable', eventRows(21, 40))),
      await refusal(h.sluice.reads.scan('durable', { limit: 100 })),
      await refusal(h.sluice.shards.seal('durable', 0)),
      await refusal(h.sluice.shards.flush('durable', 0)),
    ];
    for (const err of refusals) {
      expect(isSluiceError(err, 'SHARD_POISONED')).toBe(true);
      expect(err.status).toBe(503);
      expect(err.poison).toMatchObject(REASON);
      expect(err.details).toMatchObject({ table: 'durable', shard: 0, poison: REASON });
      expect(err.message).toBe('shard 0 of table durable is poisoned: test poison');
    }
  });

  it('a poison cached in Redis only refuses a seal with the cached record', async () => {
    h = await createHarness();
    await h.createTable(eventsTable('cached'));
    await writeRows(h.sluice, 'cached', eventRows(1, 20));
    const cached: PoisonRecord = { ...REASON, at: new Date(0).toISOString(), jobId: 'job-7' };
    expect(await h.parts.poisonCache.cachePoison('cached', 0, cached, null)).toBe(true);

    const err = await refusal(h.sluice.shards.seal('cached', 0));
    expect(err.poison).toEqual(cached);
    expect((await h.parts.manifests.read('cached', 0)).poison).toBeNull();
  });
});

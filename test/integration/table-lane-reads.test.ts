import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JsonRow, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { keyCodecFor } from '../../shared/arrow/key-codec.ts';
import type { Sluice } from '../../shared/sluice.ts';
import { tableWalPrefix, walPrefix } from '../../shared/table/paths.ts';
import { shardOf } from '../../shared/table/shard-routing.ts';
import type { TableDef } from '../../shared/table/table-def.ts';
import { GatedStore } from '../support/gated-store.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { eventRows, eventsTable, inKeyOrder, readAll, writeRows } from '../support/rows.ts';

const SHARDS = 4;

/** What the table must read as: the newest acked value per key, deletes gone. */
class Model {
  readonly rows = new Map<number, JsonRow>();
  /** Per shard, the requests that wrote rows of it since its last seal. */
  readonly unsealed = Array.from({ length: SHARDS }, () => 0);

  constructor(private readonly def: TableDef) {}

  async upsert(sluice: Sluice, rows: JsonRow[]): Promise<void> {
    await writeRows(sluice, this.def.name, rows);
    for (const row of rows) this.rows.set(row.id as number, row);
    this.touched(rows.map((r) => r.id as number));
  }

  async delete(sluice: Sluice, ids: number[]): Promise<void> {
    await sluice.writes.delete(this.def.name, ids);
    for (const id of ids) this.rows.delete(id);
    this.touched(ids);
  }

  sealed(shard: number): void {
    this.unsealed[shard] = 0;
  }

  live(): JsonRow[] {
    return inKeyOrder(this.def.schema, [...this.rows.values()]);
  }

  private touched(ids: number[]): void {
    for (const shard of new Set(ids.map((id) => shardOfId(this.def, id)))) this.unsealed[shard]!++;
  }
}

function shardOfId(def: TableDef, id: number): number {
  const codec = keyCodecFor(def.schema);
  return shardOf(codec.encode(codec.parse(id)), def.shards);
}

/** Ids from `from` up, `perShard` of each shard: a request over them covers every shard. */
function idsCovering(def: TableDef, from: number, perShard: number): number[] {
  const counts = Array.from({ length: def.shards }, () => 0);
  const ids: number[] = [];
  for (let id = from; counts.some((c) => c < perShard); id++) {
    const shard = shardOfId(def, id);
    if (counts[shard]! < perShard) {
      counts[shard]!++;
      ids.push(id);
    }
  }
  return ids;
}

function rowsOf(ids: number[], version: number): JsonRow[] {
  return ids.flatMap((id) => eventRows(id, id, version));
}

describe('reads of a table lane (docs/table-wal-lane.md §5, I10)', () => {
  let h: Harness;
  let def: TableDef;

  beforeEach(async () => {
    h = await createHarness();
    def = await h.createTable({ ...eventsTable('lane', { shards: SHARDS }), walLane: 'table' });
  });
  afterEach(() => h.close());

  /** Every read path against the model: lookups of many keys, full and paged scans, the count, the stats. */
  async function expectReadsEqual(model: Model, askedIds: number[]): Promise<void> {
    const live = model.live();
    expect(await readAll(h.sluice, 'lane')).toEqual(live);
    expect(await readAll(h.sluice, 'lane', 7)).toEqual(live);
    const found = await h.sluice.reads.lookupMany('lane', askedIds);
    // In the order asked, each found key once.
    expect(tableToJsonRows(def.schema, found.rows)).toEqual(
      askedIds.flatMap((id) => (model.rows.has(id) ? [model.rows.get(id)!] : [])),
    );
    expect(found.missing).toEqual(askedIds.filter((id) => !model.rows.has(id)));
    expect((await h.sluice.reads.countRows('lane')).rows).toBe(model.rows.size);
    for (let shard = 0; shard < SHARDS; shard++) {
      const stats = await h.sluice.shards.stats('lane', shard);
      expect(stats.unsealedEntries, `shard ${shard}`).toBe(model.unsealed[shard]);
      expect(stats.unsealedBytes > 0, `shard ${shard}`).toBe(model.unsealed[shard]! > 0);
    }
    const table = await h.sluice.reads.stats(def);
    expect(table.unsealedEntries).toBe(model.unsealed.reduce((a, b) => a + b, 0));
  }

  it('lookups of many keys, full and paged scans, counts and stats equal the model, unsealed and sealed-not-flushed', async () => {
    const model = new Model(def);
    const asked = [...idsCovering(def, 1, 12), 9_999, 10_000];
    await model.upsert(h.sluice, rowsOf(idsCovering(def, 1, 10), 1));
    await model.upsert(h.sluice, rowsOf(idsCovering(def, 1, 4), 2));
    await model.delete(h.sluice, idsCovering(def, 1, 2));
    // A request of one shard's keys only: an entry the other shards' reads must pass over.
    await model.upsert(
      h.sluice,
      rowsOf(
        idsCovering(def, 1, 12).filter((id) => shardOfId(def, id) === 2),
        3,
      ),
    );
    await expectReadsEqual(model, asked);
    // One entry per request, in the table's lane, none in a shard's own.
    expect(await keysUnder(h, tableWalPrefix('lane'))).toHaveLength(4);
    for (let shard = 0; shard < SHARDS; shard++)
      expect(await keysUnder(h, walPrefix('lane', shard))).toEqual([]);

    // Shards 0 and 2 sealed, 1 and 3 not: below shard 1's sealedThrough, entries shard 0
    // reads through its generations' members, shard 1 through the entries' own sections.
    for (const shard of [0, 2]) {
      await h.sluice.shards.seal('lane', shard);
      model.sealed(shard);
    }
    expect((await h.sluice.shards.stats('lane', 0)).sealed.length).toBeGreaterThan(0);
    await model.upsert(h.sluice, rowsOf(idsCovering(def, 3, 3), 4));
    await expectReadsEqual(model, asked);

    for (let shard = 0; shard < SHARDS; shard++) {
      await h.sluice.shards.seal('lane', shard);
      model.sealed(shard);
    }
    await model.delete(h.sluice, idsCovering(def, 5, 1));
    await expectReadsEqual(model, asked);
    for (let shard = 0; shard < SHARDS; shard++) {
      await h.sluice.shards.seal('lane', shard);
      model.sealed(shard);
    }
    await expectReadsEqual(model, asked);
  });

  it('I10/I19: a scan and a lookup of many keys racing a 4-shard write see it on every covered shard or on none', async () => {
    const ids = idsCovering(def, 1, 5);
    await writeRows(h.sluice, 'lane', rowsOf(ids, 0));
    for (let round = 1; round <= 12; round++) {
      const gated = new GatedStore(h.store);
      const writer = h.otherProcess(gated).sluice;
      const put = gated.hold('putIfAbsent', /tables\/lane\/wal\//);
      const writing = writeRows(writer, 'lane', rowsOf(ids, round));
      await put.reached;
      const reads = [scanVersions(h.sluice), lookupVersions(h.sluice, ids)];
      // The entry lands at a different moment of the reads each round: before them, among
      // their manifest reads and listing, or after.
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      put.release();
      const answers = await Promise.all(reads);
      await writing;
      for (const versions of answers) {
        // Every row of the request's shards at its new version, or every row at the one before.
        expect(versions.size, `round ${round}: ${[...versions]}`).toBe(1);
        expect([round - 1, round]).toContain([...versions][0]);
      }
      if (round % 3 === 0)
        for (let shard = 0; shard < SHARDS; shard++) await h.sluice.shards.seal('lane', shard);
    }
  });

  it('I10/I19: an entry landing while the one lane listing waits is seen on every shard it covers', async () => {
    const ids = idsCovering(def, 1, 5);
    await writeRows(h.sluice, 'lane', rowsOf(ids, 1));
    await h.sluice.shards.seal('lane', 1);
    for (const read of ['scan', 'lookup'] as const) {
      const version = read === 'scan' ? 2 : 3;
      const readerStore = new GatedStore(h.store);
      const reader = h.otherProcess(readerStore).sluice;
      const listing = readerStore.hold('list', /tables\/lane\/wal\//);
      const answer = read === 'scan' ? scanVersions(reader) : lookupVersions(reader, ids);
      await listing.reached;
      // Every manifest is read; whatever else of the lane the read lists meanwhile goes on.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writeRows(h.sluice, 'lane', rowsOf(ids, version));
      listing.release();
      expect([...(await answer)]).toEqual([version]);
    }
  });

  it('an s3. cursor pins one lane listing: an entry landing after the first page is in no later page', async () => {
    const model = new Model(def);
    const ids = idsCovering(def, 1, 10);
    await model.upsert(h.sluice, rowsOf(ids, 1));
    await h.sluice.shards.seal('lane', 3);
    await model.upsert(h.sluice, rowsOf(ids.slice(0, 20), 2));
    const snapshot = model.live();
    const first = await h.sluice.reads.scan('lane', { limit: 5 });
    expect(first.next).toMatch(/^s3\./);
    const seen = tableToJsonRows(def.schema, first.rows);
    // After the first page: new keys and new values of every shard, one shard sealed past them.
    await writeRows(h.sluice, 'lane', [...rowsOf(ids, 3), ...eventRows(500, 540, 3)]);
    await h.sluice.shards.seal('lane', 0);
    let after = first.next;
    while (after) {
      const page = await h.sluice.reads.scan('lane', { limit: 5, after });
      seen.push(...tableToJsonRows(def.schema, page.rows));
      after = page.next;
    }
    expect(inKeyOrder(def.schema, seen)).toEqual(snapshot);
  });

  it('a cursor of the other lane is refused with INVALID_CURSOR (400)', async () => {
    await h.createTable(eventsTable('shardlane', { shards: SHARDS }));
    await writeRows(h.sluice, 'shardlane', eventRows(1, 30));
    await writeRows(h.sluice, 'lane', eventRows(1, 30));
    const s2 = (await h.sluice.reads.scan('shardlane', { limit: 3 })).next!;
    const s3 = (await h.sluice.reads.scan('lane', { limit: 3 })).next!;
    expect(s2).toMatch(/^s2\./);
    expect(s3).toMatch(/^s3\./);
    await expect(h.sluice.reads.scan('lane', { limit: 3, after: s2 })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
      status: 400,
    });
    await expect(h.sluice.reads.scan('shardlane', { limit: 3, after: s3 })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
      status: 400,
    });
    // Each its own prefix, but not the other kind's body under it.
    const forged = `s3.${s2.slice(3)}`;
    await expect(h.sluice.reads.scan('lane', { limit: 3, after: forged })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });
});

async function keysUnder(h: Harness, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of h.store.list(prefix)) keys.push(...page.map((m) => m.key));
  return keys;
}

/** The versions (as `eventRows` names them) a full scan returns. */
async function scanVersions(sluice: Sluice): Promise<Set<number>> {
  const rows = await readAll(sluice, 'lane', 6);
  return new Set(rows.map(versionOf));
}

async function lookupVersions(sluice: Sluice, ids: number[]): Promise<Set<number>> {
  const def = await sluice.tables.describe('lane');
  const found = await sluice.reads.lookupMany('lane', ids);
  expect(found.missing).toEqual([]);
  return new Set(tableToJsonRows(def.schema, found.rows).map(versionOf));
}

function versionOf(row: JsonRow): number {
  return Number(/-v(\d+)$/.exec(row.name as string)![1]);
}

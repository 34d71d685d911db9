import { tableFromIPC } from 'apache-arrow';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type JsonRow, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { fromLanceArrow, lanceDb } from '../../shared/base/lance-module.ts';
import { samplerTick } from '../../shared/scheduler/sampler.ts';
import { samplerDeps } from '../../shared/services/sampler.ts';
import type { OpenedSluice } from '../../shared/sluice.ts';
import { schemaMarkKey } from '../../shared/table/schema-marks.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type ServedHarness, serveOtherProcess, serveTestApi, type TestApi } from '../support/harness-api.ts';
import { spawnLogged } from '../support/logged-process.ts';
import {
  eventRows,
  eventsTable,
  flushedGeneration,
  inKeyOrder,
  lookupJson,
  readAll,
  writeRows,
} from '../support/rows.ts';
import { waitFor } from '../support/wait-for.ts';
import { childEnv } from '../support/worker-process.ts';

const ADD_TAG = { add: [{ name: 'tag', type: 'utf8' }] };

/** Rows of eventRows with a `tag` column: null, or the value given. */
function tagged(rows: JsonRow[], tag: string | null): JsonRow[] {
  return rows.map((row) => ({ ...row, tag }));
}

async function sealAndFlush(sluice: Harness['sluice'], table: string) {
  await sluice.shards.seal(table, 0);
  await sluice.shards.flush(table, 0);
}

/** The rows LanceDB sees at the base's latest version, in key order, and its column names. */
async function lanceView(h: Harness, table: string): Promise<{ columns: string[]; rows: JsonRow[] }> {
  const handle = await (await lanceDb().connect(`${h.dir.path}/tables/${table}`)).openTable('base');
  const arrow = fromLanceArrow(await handle.query().toArrow());
  const def = await h.sluice.tables.describe(table);
  return {
    columns: arrow.schema.fields.map((f) => f.name),
    rows: inKeyOrder(def.schema, tableToJsonRows(def.schema, arrow)),
  };
}

describe('schema evolution: columns added while the table is written (I9, I10, I13)', () => {
  let h: Harness;
  let other: OpenedSluice | null = null;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await other?.parts.wal.settle();
    other = null;
    await h.close();
  });

  it('a nullable column: written at once, null for every older row in the WAL, in L0 and in the base, and LanceDB sees it', async () => {
    await h.createTable(eventsTable('grow'));
    await writeRows(h.sluice, 'grow', eventRows(1, 10));
    await sealAndFlush(h.sluice, 'grow');
    await h.sluice.tableWork.merge('grow');
    await writeRows(h.sluice, 'grow', eventRows(11, 20));
    await sealAndFlush(h.sluice, 'grow');
    await writeRows(h.sluice, 'grow', eventRows(21, 25));
    const { table, jobId } = await h.sluice.tables.addColumns('grow', ADD_TAG);
    expect(table.schema.version).toBe(2);
    expect(jobId).not.toBeNull();
    expect(table.schemaHistory).toEqual([
      {
        schemaVersion: 2,
        at: expect.any(String),
        change: { add: [{ name: 'tag', type: 'utf8', nullable: true }] },
      },
    ]);
    await writeRows(h.sluice, 'grow', tagged(eventRows(5, 6, 2), 'new'));
    await writeRows(h.sluice, 'grow', tagged(eventRows(26, 27), 'new'));
    const expected = [
      ...tagged(eventRows(1, 4), null),
      ...tagged(eventRows(5, 6, 2), 'new'),
      ...tagged(eventRows(7, 25), null),
      ...tagged(eventRows(26, 27), 'new'),
    ];
    expect(await readAll(h.sluice, 'grow', 7)).toEqual(expected);
    expect(await lookupJson(h.sluice, 'grow', 1)).toEqual(tagged(eventRows(1, 1), null)[0]);
    expect(await lookupJson(h.sluice, 'grow', 12)).toEqual(tagged(eventRows(12, 12), null)[0]);
    expect(await lookupJson(h.sluice, 'grow', 26)).toEqual(tagged(eventRows(26, 26), 'new')[0]);
    // Until a merge gives the base the column, Lance cannot run a filter naming it there.
    await expect(h.sluice.reads.search('grow', { filter: "tag = 'new'", k: 100 })).rejects.toMatchObject({
      code: 'SCHEMA_CHANGE_PENDING',
    });

    await sealAndFlush(h.sluice, 'grow');
    expect(await readAll(h.sluice, 'grow', 7)).toEqual(expected);
    await h.sluice.tableWork.merge('grow');
    expect((await h.parts.bases.read('grow')).schemaVersion).toBe(2);
    expect(await readAll(h.sluice, 'grow', 7)).toEqual(expected);
    const found = await h.sluice.reads.search('grow', { filter: "tag = 'new'", k: 100 });
    expect(found.rows.numRows).toBe(4);
    const lance = await lanceView(h, 'grow');
    expect(lance.columns).toEqual(['id', 'name', 'value', 'tag']);
    expect(lance.rows).toEqual(expected);
  });

  it('a merge with no rows gives the base the column, so an outside reader sees it; once', async () => {
    await h.createTable(eventsTable('quiet'));
    await writeRows(h.sluice, 'quiet', eventRows(1, 5));
    await sealAndFlush(h.sluice, 'quiet');
    await h.sluice.tableWork.merge('quiet');
    await h.sluice.tables.addColumns('quiet', ADD_TAG);
    const outcome = await h.sluice.tableWork.merge('quiet');
    expect(outcome.merged).toEqual([]);
    expect(outcome.lanceVersion).not.toBeNull();
    expect((await lanceView(h, 'quiet')).columns).toEqual(['id', 'name', 'value', 'tag']);
    expect((await h.sluice.tableWork.merge('quiet')).lanceVersion).toBeNull();
    expect(await readAll(h.sluice, 'quiet')).toEqual(tagged(eventRows(1, 5), null));
  });

  it('the same change again changes nothing; a change that would not keep stored rows valid is refused and stores nothing', async () => {
    await h.createTable(eventsTable('strict'));
    await h.sluice.tables.addColumns('strict', ADD_TAG);
    const again = await h.sluice.tables.addColumns('strict', ADD_TAG);
    expect([again.table.schema.version, again.jobId]).toEqual([2, null]);
    const refused: Array<[unknown, string, string]> = [
      [{ add: [{ name: 'n', type: 'int64', nullable: false }] }, 'INVALID_SCHEMA_CHANGE', 'must be nullable'],
      [{ add: [{ name: 'n', type: 'int64', default: 'x' }] }, 'INVALID_SCHEMA', 'default must be'],
      [
        { add: [{ name: 'v', type: 'vector[float32, 2]', default: [1, 2] }] },
        'INVALID_SCHEMA',
        'cannot have a default',
      ],
      [{ add: [{ name: 'n', type: 'decimal' }] }, 'INVALID_SCHEMA', 'decimal'],
      [{ add: [{ name: 'TAG', type: 'utf8' }] }, 'INVALID_SCHEMA_CHANGE', 'exists already'],
      [{ add: [{ name: 'tag', type: 'int64' }] }, 'INVALID_SCHEMA_CHANGE', 'exists already'],
      [
        {
          add: [
            { name: 'x', type: 'utf8' },
            { name: 'x', type: 'utf8' },
          ],
        },
        'INVALID_SCHEMA',
        'duplicate',
      ],
      [{ add: [{ name: '_sluice_x', type: 'utf8' }] }, 'INVALID_SCHEMA', 'reserved'],
      [{ add: [] }, 'INVALID_SCHEMA_CHANGE', 'non-empty'],
      [{ alter: [{ name: 'value', type: 'float32' }] }, 'INVALID_SCHEMA_CHANGE', 'add a column'],
      [{ drop: ['value'] }, 'INVALID_SCHEMA_CHANGE', 'stop writing it'],
      [{ rename: { value: 'v' } }, 'INVALID_SCHEMA_CHANGE', 'under the new name'],
      [[{ name: 'x' }], 'INVALID_SCHEMA_CHANGE', 'send {"add"'],
    ];
    for (const [input, code, says] of refused) {
      const err = await h.sluice.tables.addColumns('strict', input).catch((e: unknown) => e);
      expect([input, err]).toEqual([input, expect.objectContaining({ code })]);
      expect((err as Error).message).toContain(says);
    }
    const def = await h.sluice.tables.describe('strict');
    expect([def.schema.version, def.schema.fields.map((f) => f.name)]).toEqual([
      2,
      ['id', 'name', 'value', 'tag'],
    ]);
  });

  it('another process holding the old definition reads, flushes and merges the new column instead of dropping it', async () => {
    await h.createTable(eventsTable('stale'));
    other = h.otherProcess();
    await writeRows(other.sluice, 'stale', eventRows(1, 3));
    expect((await other.sluice.tables.describe('stale')).schema.version).toBe(1);
    await h.sluice.tables.addColumns('stale', ADD_TAG);
    await writeRows(h.sluice, 'stale', tagged(eventRows(4, 5), 'x'));
    const expected = [...tagged(eventRows(1, 3), null), ...tagged(eventRows(4, 5), 'x')];
    // The other process meets an entry of schema version 2 and reads the definition again.
    expect(await readAll(other.sluice, 'stale')).toEqual(expected);
    expect((await other.sluice.tables.describe('stale')).schema.version).toBe(2);

    const third = h.otherProcess();
    try {
      await third.sluice.tables.describe('stale');
      await writeRows(h.sluice, 'stale', tagged(eventRows(6, 6), 'y'));
      await third.sluice.shards.seal('stale', 0);
      await third.sluice.shards.flush('stale', 0);
      const manifest = await h.parts.manifests.read('stale', 0);
      const l0 = tableFromIPC((await h.store.get(manifest.committed[0]!.path))!.body);
      expect(l0.schema.fields.map((f) => f.name)).toContain('tag');
      expect([...l0.getChild('tag')!].filter((v) => v !== null)).toEqual(['x', 'x', 'y']);
      await third.sluice.tableWork.merge('stale');
      expect((await lanceView(h, 'stale')).rows).toEqual([...expected, ...tagged(eventRows(6, 6), 'y')]);
    } finally {
      await third.parts.wal.settle();
    }
  });

  it('I13: a flush run again after a later change writes the same L0 bytes', async () => {
    await h.createTable(eventsTable('same'));
    await writeRows(h.sluice, 'same', eventRows(1, 5));
    await h.sluice.shards.seal('same', 0);
    const sealed = await h.parts.manifests.read('same', 0);
    await h.sluice.shards.flush('same', 0);
    const path = (await h.parts.manifests.read('same', 0)).committed[0]!.path;
    const first = (await h.store.get(path))!.body;
    await h.sluice.tables.addColumns('same', ADD_TAG);
    // The generation's range is flushed again, as a redelivered job would.
    await h.store.delete(path);
    await h.parts.manifests.update('same', 0, () => sealed);
    await h.sluice.shards.flush('same', 0);
    expect(Buffer.compare((await h.store.get(path))!.body, first)).toBe(0);
  });

  it('kill -9 between the base gaining the column and the record: reads stay exact, the next merge adds it once', async () => {
    await h.createTable(eventsTable('killed'));
    await writeRows(h.sluice, 'killed', eventRows(1, 5));
    await sealAndFlush(h.sluice, 'killed');
    await h.sluice.tableWork.merge('killed');
    await h.sluice.tables.addColumns('killed', ADD_TAG);
    await writeRows(h.sluice, 'killed', tagged(eventRows(6, 8), 't'));
    await sealAndFlush(h.sluice, 'killed');
    const child = spawnLogged(
      'test/support/merge-until-step.ts',
      ['killed', 'lance-committed'],
      childEnv(h.config),
    );
    await child.waitForLine((line) => line.msg === 'merge step', 'the merge to reach lance-committed');
    await child.stop('SIGKILL');
    expect((await h.parts.bases.read('killed')).schemaVersion).toBeUndefined();
    const expected = [...tagged(eventRows(1, 5), null), ...tagged(eventRows(6, 8), 't')];
    expect(await readAll(h.sluice, 'killed')).toEqual(expected);
    await h.sluice.tableWork.merge('killed');
    expect((await h.parts.bases.read('killed')).schemaVersion).toBe(2);
    expect(await readAll(h.sluice, 'killed')).toEqual(expected);
    expect(await lanceView(h, 'killed')).toEqual({ columns: ['id', 'name', 'value', 'tag'], rows: expected });
  });
});

describe('schema evolution over HTTP, across processes', () => {
  let api: TestApi;
  let other: ServedHarness;

  beforeEach(async () => {
    api = await serveTestApi();
    other = await serveOtherProcess(api.h);
  });
  afterEach(async () => {
    await other.close();
    await api.close();
  });

  it('a process that held the old definition takes a write naming the column another process added, and answers it', async () => {
    const admin = { token: api.tokens.all };
    expect((await api.call('POST', '/v1/tables', { ...admin, json: eventsTable('http') })).status).toBe(201);
    // The other process reads and writes first, so it holds schema version 1.
    const before = await other.call('POST', '/v1/tables/http/rows', {
      ...admin,
      json: { rows: eventRows(1, 2) },
    });
    expect(before.status).toBe(200);
    const unknown = await other.call('POST', '/v1/tables/http/rows', {
      ...admin,
      json: { rows: tagged(eventRows(3, 3), 'x') },
    });
    expect([unknown.status, unknown.json.error.code]).toEqual([400, 'INVALID_ROWS']);

    const added = await api.call('POST', '/v1/tables/http/columns', { ...admin, json: ADD_TAG });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ schemaVersion: 2, jobId: expect.any(String) });
    expect(added.json.schema.fields.at(-1)).toEqual({ name: 'tag', type: 'utf8', nullable: true });

    const write = await other.call('POST', '/v1/tables/http/rows', {
      ...admin,
      json: { rows: tagged(eventRows(3, 3), 'x') },
    });
    expect(write.status).toBe(200);
    const scanned = await other.call('GET', '/v1/tables/http/rows?limit=10', admin);
    expect(scanned.json.rows).toEqual([...tagged(eventRows(1, 2), null), ...tagged(eventRows(3, 3), 'x')]);
    const described = await other.call('GET', '/v1/tables/http', admin);
    expect(described.json).toMatchObject({
      schemaVersion: 2,
      schemaHistory: [{ schemaVersion: 2, change: { add: [{ name: 'tag', type: 'utf8', nullable: true }] } }],
    });

    const refused = await api.call('POST', '/v1/tables/http/columns', {
      ...admin,
      json: { add: [{ name: 'n', type: 'int64', nullable: false }] },
    });
    expect([refused.status, refused.json.error.code]).toEqual([400, 'INVALID_SCHEMA_CHANGE']);
    expect(refused.json.error.message).toContain('must be nullable or have a default');
    const forbidden = await api.call('POST', '/v1/tables/http/columns', {
      token: api.tokens.write,
      json: ADD_TAG,
    });
    expect(forbidden.status).toBe(403);
    expect((await api.call('GET', '/v1/tables/http', admin)).json.schemaVersion).toBe(2);
  });

  it('a column added while 4 writers in two processes write and workers seal, flush and merge: every row has the value written or null, through the API and in LanceDB', async () => {
    const admin = { token: api.tokens.all };
    const def = {
      ...eventsTable('busy', { shards: 2 }),
      settings: { sealDelayMs: 10, mergeAfterGenerations: 2 },
    };
    expect((await api.call('POST', '/v1/tables', { ...admin, json: def })).status).toBe(201);
    api.h.startWorkers(['seal', 'flush', 'merge']);
    let added = false;
    let stop = false;
    const sent = new Map<number, string | null>();
    const writer = async (w: number) => {
      const call = w % 2 === 0 ? api.call : other.call;
      for (let batch = 0; !stop || batch < 4; batch++) {
        const tag = added ? `w${w}-b${batch}` : null;
        const rows = eventRows(w * 10_000 + batch * 10, w * 10_000 + batch * 10 + 9).map((r) =>
          tag === null ? r : { ...r, tag },
        );
        const reply = await call('POST', '/v1/tables/busy/rows', { ...admin, json: { rows } });
        expect([reply.status, reply.json?.error]).toEqual([200, undefined]);
        for (const r of rows) sent.set(r.id as number, tag);
        if (batch > 200) break;
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await waitFor(() => sent.size >= 200, { message: 'the writers under way' });
    const change = await api.call('POST', '/v1/tables/busy/columns', { ...admin, json: ADD_TAG });
    expect(change.status).toBe(200);
    added = true;
    await waitFor(() => [...sent.values()].filter((t) => t !== null).length >= 200, {
      message: 'writes naming the column',
    });
    stop = true;
    await Promise.all(writers);

    const expected = [...sent].map(([id, tag]) => ({ id, tag }));
    const byId = (rows: Array<{ id: unknown; tag: unknown }>) =>
      rows.map((r) => ({ id: Number(r.id), tag: r.tag ?? null })).sort((a, b) => a.id - b.id);
    const scanAllHttp = async (call: typeof api.call) => {
      const rows: Array<{ id: unknown; tag: unknown }> = [];
      let after: string | null = null;
      do {
        const query: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
        const page = await call('GET', `/v1/tables/busy/rows?limit=500${query}`, admin);
        rows.push(...page.json.rows);
        after = page.json.next;
      } while (after);
      return byId(rows);
    };
    const want = byId(expected);
    expect(await scanAllHttp(other.call)).toEqual(want);
    expect(await scanAllHttp(api.call)).toEqual(want);

    await waitFor(
      async () => {
        const { stats } = (await api.call('GET', '/v1/tables/busy', admin)).json;
        if (stats.unsealedEntries > 0 || stats.sealedGenerations > 0) return false;
        if (stats.pendingRows === 0) return true;
        await api.call('POST', '/v1/tables/busy/merge', admin);
        return false;
      },
      { message: 'every row merged into the base', timeoutMs: 60_000, intervalMs: 500 },
    );
    expect((await api.h.parts.bases.read('busy')).schemaVersion).toBe(2);
    const handle = await (await lanceDb().connect(`${api.h.dir.path}/tables/busy`)).openTable('base');
    const base = fromLanceArrow(await handle.query().select(['id', 'tag']).toArrow());
    expect(byId(base.toArray().map((r) => ({ id: r.id, tag: r.tag })))).toEqual(want);
  }, 120_000);

  it('a process holding the definition from before a widening reads the widened base: exact values, not an error', async () => {
    const admin = { token: api.tokens.all };
    await createPair(api, 'wide', { name: 'n', type: 'int32' }, { sealDelayMs: 10 });
    // The other process reads first, so it holds schema version 1 (n int32).
    expect((await other.call('GET', '/v1/tables/wide/rows?key=1', admin)).status).toBe(404);

    const written = await api.call('POST', '/v1/tables/wide/rows', {
      ...admin,
      json: { rows: [{ id: 1, n: 5 }] },
    });
    expect(written.status).toBe(200);
    const widened = await api.call('POST', '/v1/tables/wide/columns', {
      ...admin,
      json: { alter: [{ name: 'n', type: 'int64' }] },
    });
    expect(widened.status).toBe(200);
    // The merge gives the base the change; the row is in the base only from then on.
    const { sluice } = api.h;
    await sluice.shards.seal('wide', 0);
    await sluice.shards.flush('wide', 0);
    await sluice.tableWork.merge('wide');
    expect((await api.h.parts.bases.read('wide')).schemaVersion).toBe(2);
    expect((await api.call('GET', '/v1/tables/wide/rows?key=1', admin)).json.row).toEqual({ id: 1, n: 5 });

    // The stale process meets no WAL entry or L0 file of version 2, only the base.
    const looked = await other.call('GET', '/v1/tables/wide/rows?key=1', admin);
    expect([looked.status, looked.json.row ?? looked.json.error]).toEqual([200, { id: 1, n: 5 }]);
    const scanned = await other.call('GET', '/v1/tables/wide/rows?limit=10', admin);
    expect([scanned.status, scanned.json.rows ?? scanned.json.error]).toEqual([200, [{ id: 1, n: 5 }]]);
  });
  /** Table `floats` (f float32) widened to float64 through this process, the other holding version 1. */
  async function widenWhileOtherHoldsFloat32(): Promise<void> {
    const admin = { token: api.tokens.all };
    await createPair(api, 'floats', { name: 'f', type: 'float32' });
    // The other process writes first, so it holds schema version 1 (f float32).
    expect(
      (await other.call('POST', '/v1/tables/floats/rows', { ...admin, json: { rows: [{ id: 1, f: 0.5 }] } }))
        .status,
    ).toBe(200);
    const widened = await api.call('POST', '/v1/tables/floats/columns', {
      ...admin,
      json: { alter: [{ name: 'f', type: 'float64' }] },
    });
    expect(widened.status).toBe(200);
  }

  /** A client writes 0.1 to row `id` through the other process; what this process reads back. */
  async function writeTenthThroughOther(id: number): Promise<unknown> {
    const admin = { token: api.tokens.all };
    const written = await other.call('POST', '/v1/tables/floats/rows', {
      ...admin,
      json: { rows: [{ id, f: 0.1 }] },
    });
    expect(written.status).toBe(200);
    return (await api.call('GET', `/v1/tables/floats/rows?key=${id}`, admin)).json.row;
  }

  it('a float32 column widened to float64: a write after the ack keeps its float64 value in a process that held float32', async () => {
    await widenWhileOtherHoldsFloat32();
    // After the change's ack, a client writes a float64 value through the other process.
    expect(await writeTenthThroughOther(2)).toEqual({ id: 2, f: 0.1 });
  });

  it('a float32 column widened to float64: the write keeps its float64 value when Redis lost the schema mark, and the mark is back', async () => {
    await widenWhileOtherHoldsFloat32();
    const mark = schemaMarkKey(api.h.config.redisPrefix, 'floats');
    expect(await api.h.redis.get(mark)).toBe('2');
    // As after a Redis restart that lost the key: the other process must not take float32 for the newest.
    await api.h.redis.del(mark);
    expect(await writeTenthThroughOther(2)).toEqual({ id: 2, f: 0.1 });
    expect(await api.h.redis.get(mark)).toBe('2');
  });

  it("the sampler's sweep raises a schema mark left behind the table's version, as by a Redis restored from before the change", async () => {
    await widenWhileOtherHoldsFloat32();
    const mark = schemaMarkKey(api.h.config.redisPrefix, 'floats');
    // A Redis restored from before the change: the other process would find its version current.
    await api.h.redis.set(mark, '1');
    await api.h.parts.samplerIndex.recordSweep(0);
    await samplerTick(samplerDeps(api.h.parts), Date.now());
    expect(await api.h.redis.get(mark)).toBe('2');
    expect(await writeTenthThroughOther(2)).toEqual({ id: 2, f: 0.1 });
  });

  it('a write asks Redis for the schema mark only when its table has a float32 column', async () => {
    const admin = { token: api.tokens.all };
    await createPair(api, 'floats', { name: 'f', type: 'float32' });
    await createPair(api, 'doubles', { name: 'f', type: 'float64' });
    const redis = api.h.redis as Redis;
    const send = redis.sendCommand.bind(redis);
    const markCalls = new Map<string, string[]>([
      ['floats', []],
      ['doubles', []],
    ]);
    vi.spyOn(redis, 'sendCommand').mockImplementation((...args: Parameters<Redis['sendCommand']>) => {
      const [command] = args;
      for (const [table, names] of markCalls)
        if (command.args.includes(schemaMarkKey(api.h.config.redisPrefix, table))) names.push(command.name);
      return send(...args);
    });
    for (const table of markCalls.keys()) {
      for (const id of [1, 2]) {
        const rows = [{ id, f: 0.5 }];
        expect(
          (await api.call('POST', `/v1/tables/${table}/rows`, { ...admin, json: { rows } })).status,
        ).toBe(200);
      }
    }
    // The float32 table's first write found no mark and filled it (evalsha, or eval when Redis lacked the script).
    expect(markCalls.get('floats')!.filter((name) => name === 'get')).toEqual(['get', 'get']);
    expect(markCalls.get('doubles')).toEqual([]);
  });

  it('the merge the columns route asks for gives the base the column even when run by a worker that held the old definition', async () => {
    const admin = { token: api.tokens.all };
    const { h } = api;
    await createPair(api, 'late', { name: 'name', type: 'utf8' }, { sealDelayMs: 10 });
    await flushedGeneration(h.sluice, 'late', [{ id: 1, name: 'a' }]);
    await h.sluice.tableWork.merge('late');
    // The column is added through the other process; this one (the worker) holds version 1.
    const added = await other.call('POST', '/v1/tables/late/columns', {
      ...admin,
      json: { add: [{ name: 'tag', type: 'utf8' }] },
    });
    expect(added.status).toBe(200);
    expect(added.json.jobId).toEqual(expect.any(String));
    // The job asked for runs here, on the worker's definition.
    await h.sluice.tableWork.merge('late');
    expect((await h.parts.bases.read('late')).schemaVersion ?? 1).toBe(2);
    const searched = await other.call('POST', '/v1/tables/late/search', {
      ...admin,
      json: { filter: "tag = 'x'", k: 10 },
    });
    expect([searched.status, searched.json.error?.code]).toEqual([200, undefined]);
  });
  it('a filter on a widened column with a value past int32 answers 503 SCHEMA_CHANGE_PENDING until the merge widens the base, then its rows', async () => {
    const admin = { token: api.tokens.all };
    const { h } = api;
    await createPair(api, 'w', { name: 'n', type: 'int32' }, { sealDelayMs: 10 });
    const rows = [
      { id: 1, n: 5 },
      { id: 2, n: 2147483647 },
    ];
    expect((await api.call('POST', '/v1/tables/w/rows', { ...admin, json: { rows } })).status).toBe(200);
    await h.sluice.shards.seal('w', 0);
    await h.sluice.shards.flush('w', 0);
    await h.sluice.tableWork.merge('w');
    const widened = await api.call('POST', '/v1/tables/w/columns', {
      ...admin,
      json: { alter: [{ name: 'n', type: 'int64' }] },
    });
    expect(widened.status).toBe(200);
    // No worker runs here: the base is still int32 until the merge asked for runs.
    expect((await h.parts.bases.read('w')).schemaVersion ?? 1).toBe(1);
    const written = await api.call('POST', '/v1/tables/w/rows', {
      ...admin,
      json: { rows: [{ id: 3, n: 3000000001 }] },
    });
    expect(written.status).toBe(200);
    const search = () =>
      api.call('POST', '/v1/tables/w/search', { ...admin, json: { filter: 'n > 3000000000', k: 10 } });
    // Lance cannot compare the base's int32 column with a literal past int32: retry after the merge.
    const early = await search();
    expect([early.status, early.json.error?.code, early.json.error?.details.columns]).toEqual([
      503,
      'SCHEMA_CHANGE_PENDING',
      ['n'],
    ]);
    await h.sluice.tableWork.merge('w');
    const big = await search();
    expect([big.status, big.json.rows ?? big.json.error]).toEqual([200, [{ id: 3, n: 3000000001 }]]);
  });
  it('a filter naming a column added by another process answers its rows there, not 400 INVALID_FILTER', async () => {
    const admin = { token: api.tokens.all };
    const created = await api.call('POST', '/v1/tables', {
      ...admin,
      json: {
        name: 'tags',
        schema: { fields: [{ name: 'id', type: 'int64' }] },
        primaryKey: ['id'],
      },
    });
    expect(created.status).toBe(201);
    // The other process reads first, so it holds schema version 1.
    expect(
      (await other.call('POST', '/v1/tables/tags/search', { ...admin, json: { filter: 'id > 0', k: 10 } }))
        .status,
    ).toBe(200);
    const added = await api.call('POST', '/v1/tables/tags/columns', {
      ...admin,
      json: { add: [{ name: 'tag', type: 'utf8' }] },
    });
    expect(added.status).toBe(200);
    const written = await api.call('POST', '/v1/tables/tags/rows', {
      ...admin,
      json: { rows: [{ id: 1, tag: 'x' }] },
    });
    expect(written.status).toBe(200);
    // The row is a WAL entry of version 2: a read there would meet it and read the definition again.
    const searched = await other.call('POST', '/v1/tables/tags/search', {
      ...admin,
      json: { filter: "tag = 'x'", k: 10 },
    });
    expect([searched.status, searched.json.rows ?? searched.json.error]).toEqual([
      200,
      [{ id: 1, tag: 'x' }],
    ]);
  });
});

describe('widening a column', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('int32 → int64 and float32 → float64, nullable made true: old values exact through every read and in LanceDB; narrowing refused', async () => {
    await h.createTable({
      name: 'wide',
      schema: {
        fields: [
          { name: 'id', type: 'int64' },
          { name: 'n', type: 'int32', nullable: false },
          { name: 'f', type: 'float32', nullable: true },
        ],
      },
      primaryKey: ['id'],
      settings: { sealDelayMs: 10 },
    });
    const edges = [
      { id: 1, n: -2147483648, f: 'NaN' },
      { id: 2, n: 2147483647, f: 'Infinity' },
      { id: 3, n: 0, f: null },
      { id: 4, n: 7, f: 0.5 },
    ];
    await writeRows(h.sluice, 'wide', edges.slice(0, 2));
    await sealAndFlush(h.sluice, 'wide');
    await h.sluice.tableWork.merge('wide');
    await writeRows(h.sluice, 'wide', edges.slice(2, 3));
    await sealAndFlush(h.sluice, 'wide');
    await writeRows(h.sluice, 'wide', edges.slice(3));
    const { table } = await h.sluice.tables.addColumns('wide', {
      alter: [
        { name: 'n', type: 'int64', nullable: true },
        { name: 'f', type: 'float64' },
      ],
    });
    expect(table.schema.fields.map((f) => [f.name, f.type.kind, f.nullable])).toEqual([
      ['id', 'int64', false],
      ['n', 'int64', true],
      ['f', 'float64', true],
    ]);
    await writeRows(h.sluice, 'wide', [
      { id: 5, n: '9007199254740993', f: 1e300 },
      { id: 6, n: null, f: null },
    ]);
    const expected = [...edges, { id: 5, n: '9007199254740993', f: 1e300 }, { id: 6, n: null, f: null }];
    expect(await readAll(h.sluice, 'wide')).toEqual(expected);
    expect(await lookupJson(h.sluice, 'wide', 1)).toEqual(edges[0]);
    await sealAndFlush(h.sluice, 'wide');
    await h.sluice.tableWork.merge('wide');
    expect(await readAll(h.sluice, 'wide')).toEqual(expected);
    const handle = await (await lanceDb().connect(`${h.dir.path}/tables/wide`)).openTable('base');
    const lance = fromLanceArrow(await handle.query().toArrow());
    expect(lance.schema.fields.map((f) => [f.name, String(f.type), f.nullable])).toEqual([
      ['id', 'Int64', false],
      ['n', 'Int64', true],
      ['f', 'Float64', true],
    ]);
    expect(inKeyOrder(table.schema, tableToJsonRows(table.schema, lance))).toEqual(expected);

    for (const alter of [
      { name: 'n', type: 'int32' },
      { name: 'n', nullable: false },
      { name: 'id', type: 'int64' },
      { name: 'f', type: 'utf8' },
    ]) {
      await expect(h.sluice.tables.addColumns('wide', { alter: [alter] })).rejects.toMatchObject({
        code: 'INVALID_SCHEMA_CHANGE',
      });
    }
    expect((await h.sluice.tables.describe('wide')).schema.version).toBe(2);
  });
});

describe('a column added with a default', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it('every older row reads the default, in the WAL, in L0 and in the base; a write leaving it out gets it; LanceDB sees it', async () => {
    await h.createTable(eventsTable('defaults'));
    await writeRows(h.sluice, 'defaults', eventRows(1, 3));
    await sealAndFlush(h.sluice, 'defaults');
    await h.sluice.tableWork.merge('defaults');
    await writeRows(h.sluice, 'defaults', eventRows(4, 5));
    await sealAndFlush(h.sluice, 'defaults');
    await writeRows(h.sluice, 'defaults', eventRows(6, 6));
    const { table } = await h.sluice.tables.addColumns('defaults', {
      add: [
        { name: 'level', type: 'int64', nullable: false, default: 3 },
        { name: 'source', type: 'utf8', default: "it's old" },
      ],
    });
    expect(table.schema.fields.slice(3)).toEqual([
      { name: 'level', type: { kind: 'int64' }, nullable: false, default: 3 },
      { name: 'source', type: { kind: 'utf8' }, nullable: true, default: "it's old" },
    ]);
    await writeRows(h.sluice, 'defaults', [
      { ...eventRows(7, 7)[0]!, level: 9, source: null },
      ...eventRows(8, 8),
    ]);
    const old = (rows: JsonRow[]) => rows.map((r) => ({ ...r, level: 3, source: "it's old" }));
    const expected = [
      ...old(eventRows(1, 6)),
      { ...eventRows(7, 7)[0]!, level: 9, source: null },
      ...old(eventRows(8, 8)),
    ];
    expect(await readAll(h.sluice, 'defaults')).toEqual(expected);
    expect(await lookupJson(h.sluice, 'defaults', 2)).toEqual(expected[1]);
    await sealAndFlush(h.sluice, 'defaults');
    await h.sluice.tableWork.merge('defaults');
    expect(await readAll(h.sluice, 'defaults')).toEqual(expected);
    const lance = await lanceView(h, 'defaults');
    expect(lance.columns).toEqual(['id', 'name', 'value', 'level', 'source']);
    expect(lance.rows).toEqual(expected);
    const found = await h.sluice.reads.search('defaults', { filter: 'level = 3', k: 100 });
    expect(found.rows.numRows).toBe(7);
  });
});

/** A table of an int64 key `id` and one nullable column, created over HTTP. */
async function createPair(
  api: TestApi,
  name: string,
  column: { name: string; type: string },
  settings: Record<string, number> = {},
): Promise<void> {
  const fields = [
    { name: 'id', type: 'int64' },
    { ...column, nullable: true },
  ];
  const created = await api.call('POST', '/v1/tables', {
    token: api.tokens.all,
    json: { name, schema: { fields }, primaryKey: ['id'], settings },
  });
  expect(created.status).toBe(201);
}

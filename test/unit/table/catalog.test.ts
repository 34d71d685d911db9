import { beforeEach, describe, expect, it } from 'vitest';
import { isSluiceError } from '../../../shared/errors.ts';
import { hintsFor } from '../../../shared/store/versioned-document.ts';
import { TableCatalog } from '../../../shared/table/catalog.ts';
import { tableConfigKey, tablesPrefix, walKey } from '../../../shared/table/paths.ts';
import { SchemaDocuments } from '../../../shared/table/schema-documents.ts';
import { DEFAULT_SHARDS, parseCreateTable, tableDefToJSON } from '../../../shared/table/table-def.ts';
import { MemoryStore } from '../../support/memory-store.ts';
import { defaultSettings, sampleCreate } from '../../support/sample-table.ts';

const encoder = new TextEncoder();

describe('table catalog', () => {
  let store: MemoryStore;
  let catalog: TableCatalog;

  beforeEach(() => {
    store = new MemoryStore();
    catalog = new TableCatalog(store, defaultSettings, new SchemaDocuments(store, hintsFor(60_000)));
  });

  describe('create', () => {
    it('stores tables/{name}/table.json with the full definition and returns it', async () => {
      const now = new Date('2026-01-02T03:04:05.000Z');
      const def = await catalog.create(sampleCreate({ settings: { mergeAfterGenerations: 3 } }), { now });
      expect(store.keys()).toEqual([tableConfigKey('events')]);
      expect(def).toMatchObject({
        name: 'events',
        shards: DEFAULT_SHARDS,
        createdAt: '2026-01-02T03:04:05.000Z',
      });
      expect(def.settings).toEqual({ ...defaultSettings, mergeAfterGenerations: 3 });
      const stored = JSON.parse(Buffer.from((await store.get(tableConfigKey('events')))!.body).toString());
      expect(stored).toEqual(tableDefToJSON(def));
      expect(stored).toMatchObject({ formatVersion: 1, primaryKey: ['id'], shards: DEFAULT_SHARDS });
    });

    it('answers TABLE_EXISTS for a taken name and leaves the first definition alone', async () => {
      await catalog.create(sampleCreate({ shards: 2 }));
      await expect(catalog.create(sampleCreate({ shards: 8 }))).rejects.toMatchObject({
        code: 'TABLE_EXISTS',
      });
      expect((await catalog.get('events')).shards).toBe(2);
    });

    it('lets exactly one of 20 racing creates of one name win', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => catalog.create(sampleCreate({ shards: i + 1 }))),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.every((r) => isSluiceError(r.reason, 'TABLE_EXISTS'))).toBe(true);
      const winner = won[0]!.value;
      expect(await catalog.get('events')).toEqual(winner);
    });
  });

  describe('get', () => {
    it('returns what create returned', async () => {
      const def = await catalog.create(sampleCreate());
      expect(await catalog.get('events')).toEqual(def);
    });

    it('answers TABLE_NOT_FOUND for a missing table and INVALID_TABLE_NAME for a bad name', async () => {
      await expect(catalog.get('nope')).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
      await expect(catalog.get('../etc')).rejects.toMatchObject({ code: 'INVALID_TABLE_NAME' });
    });

    it('fills settings added after the table was created from the defaults', async () => {
      const def = parseCreateTable(sampleCreate(), defaultSettings);
      const json = tableDefToJSON(def);
      const { maxGenerationRows: _dropped, ...olderSettings } = json.settings;
      await store.put(
        tableConfigKey('events'),
        encoder.encode(JSON.stringify({ ...json, settings: olderSettings })),
      );
      expect((await catalog.get('events')).settings).toEqual(defaultSettings);
    });

    // I9: a stored definition is validated at every open, before any row is accepted.
    it.each([
      ['not JSON', () => '{"name":'],
      ['not UTF-8', () => Buffer.from([0xff, 0xfe])],
      ['a JSON array', () => '[]'],
      [
        'an unknown type',
        (j: Record<string, unknown>) => ({ ...j, schema: { fields: [{ name: 'id', type: 'int128' }] } }),
      ],
      [
        'a nullable key',
        (j: Record<string, unknown>) => ({
          ...j,
          schema: { fields: [{ name: 'id', type: 'int64', nullable: true }] },
        }),
      ],
      ['zero shards', (j: Record<string, unknown>) => ({ ...j, shards: 0 })],
      ['a bad setting', (j: Record<string, unknown>) => ({ ...j, settings: { maxGenerationsPerMerge: 0 } })],
      ['another format version', (j: Record<string, unknown>) => ({ ...j, formatVersion: 2 })],
      ['no createdAt', (j: Record<string, unknown>) => ({ ...j, createdAt: undefined })],
      ['another table name', (j: Record<string, unknown>) => ({ ...j, name: 'other' })],
      ['an unknown property', (j: Record<string, unknown>) => ({ ...j, extra: true })],
    ])('refuses a stored definition with %s as DATA_CORRUPT', async (_name, corrupt) => {
      const json = tableDefToJSON(parseCreateTable(sampleCreate(), defaultSettings)) as unknown as Record<
        string,
        unknown
      >;
      const body = corrupt(json);
      const bytes =
        typeof body === 'string'
          ? encoder.encode(body)
          : body instanceof Buffer
            ? body
            : encoder.encode(JSON.stringify(body));
      await store.put(tableConfigKey('events'), bytes);
      await expect(catalog.get('events')).rejects.toMatchObject({
        code: 'DATA_CORRUPT',
        details: expect.objectContaining({ table: 'events', key: tableConfigKey('events') }),
      });
    });
  });

  describe('list', () => {
    const names = ['a', 'a-b', 'a.b', 'a_b', 'a0', 'B', 'z', '9'];
    // The order of `tables/{name}/` keys: "-" and "." sort before the "/" that ends "a".
    const KEY_ORDER = ['9', 'B', 'a-b', 'a.b', 'a', 'a0', 'a_b', 'z'];

    beforeEach(async () => {
      for (const name of names) await catalog.create(sampleCreate({ name }));
    });

    it('lists every table once, in key order', async () => {
      const all = await catalog.listAll();
      expect(all.map((t) => t.name)).toEqual(KEY_ORDER);
      expect((await catalog.list()).next).toBeNull();
    });

    it('pages with an opaque next cursor', async () => {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page = await catalog.list({ after, limit: 3 });
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((t) => t.name));
        after = page.next;
        pages++;
      } while (after !== null);
      expect(pages).toBe(3);
      expect(seen).toEqual(KEY_ORDER);
    });

    it('skips over the data objects of each table instead of listing them', async () => {
      for (let seq = 1; seq <= 50; seq++) await store.put(walKey('a', 0, seq), Uint8Array.of(seq));
      await store.put(walKey('orphan', 0, 1), Uint8Array.of(1));
      await store.put(`${tablesPrefix()}stray-file`, Uint8Array.of(1));
      let listed = 0;
      const counting = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop !== 'list') return Reflect.get(target, prop, receiver);
          return (prefix: string, options: object) => {
            const pages = target.list(prefix, options);
            return (async function* () {
              for await (const page of pages) {
                listed += page.length;
                yield page;
              }
            })();
          };
        },
      });
      const all = await new TableCatalog(
        counting,
        defaultSettings,
        new SchemaDocuments(counting, hintsFor(60_000)),
      ).listAll();
      expect(all.map((t) => t.name)).toEqual(KEY_ORDER);
      expect(listed).toBeLessThan(20);
    });

    it('refuses a malformed cursor and an out-of-range limit', async () => {
      await expect(catalog.list({ after: '../x' })).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
      await expect(catalog.list({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(catalog.list({ limit: 257 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    });
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHARDS,
  isAppendOnly,
  parseCreateTable,
  parseStoredTableDef,
  parseTableSettings,
  tableDefToJSON,
} from '../../../shared/table/table-def.ts';
import { assertTableName, isTableName } from '../../../shared/table/table-name.ts';
import { defaultSettings, sampleCreate } from '../../support/sample-table.ts';

describe('table names (docs/design.md, "Table names")', () => {
  it.each(['t', '0', '_', 'events_2026', 'a.b-c', 'a..b', 'x'.repeat(128), 'Events'])(
    'accepts %j',
    (name) => {
      expect(isTableName(name)).toBe(true);
      expect(assertTableName(name)).toBe(name);
    },
  );

  it.each(['', '.', '..', '.hidden', '-x', 'a/b', 'a b', 'é', 'x'.repeat(129), 'a\u0000'])(
    'refuses %j',
    (name) => {
      expect(isTableName(name)).toBe(false);
      expect(() => assertTableName(name)).toThrow(expect.objectContaining({ code: 'INVALID_TABLE_NAME' }));
    },
  );
});

describe('table definition', () => {
  it('an omitted or empty primaryKey makes an append-only table, and a stored one reads back as one', () => {
    const { primaryKey: _, ...keyless } = sampleCreate();
    for (const body of [keyless, { ...keyless, primaryKey: [] }]) {
      const def = parseCreateTable(body, defaultSettings);
      expect(isAppendOnly(def)).toBe(true);
      expect(isAppendOnly(parseStoredTableDef(tableDefToJSON(def), defaultSettings))).toBe(true);
    }
    expect(isAppendOnly(parseCreateTable(sampleCreate(), defaultSettings))).toBe(false);
    expect(() => parseCreateTable({ ...keyless, primaryKey: 'id' }, defaultSettings)).toThrow(
      expect.objectContaining({ code: 'INVALID_SCHEMA' }),
    );
  });

  it('defaults shards to 1 and settings to the defaults passed in', () => {
    const defaults = { ...defaultSettings, sealDelayMs: 50 };
    const def = parseCreateTable(sampleCreate(), defaults);
    expect(def.shards).toBe(DEFAULT_SHARDS);
    expect(DEFAULT_SHARDS).toBe(1);
    expect(def.settings).toEqual(defaults);
    expect(def.formatVersion).toBe(1);
  });

  it('merges given settings over the defaults', () => {
    expect(parseTableSettings({ mergeAfterGenerations: 0, maxGenerationRows: 10 }, defaultSettings)).toEqual({
      ...defaultSettings,
      mergeAfterGenerations: 0,
      maxGenerationRows: 10,
    });
  });

  it('accepts 1 and 1024 shards', () => {
    expect(parseCreateTable(sampleCreate({ shards: 1 }), defaultSettings).shards).toBe(1);
    expect(parseCreateTable(sampleCreate({ shards: 1024 }), defaultSettings).shards).toBe(1024);
  });

  it('reads back exactly what it stores', () => {
    const def = parseCreateTable(sampleCreate({ shards: 16, settings: { sealDelayMs: 5 } }), defaultSettings);
    const stored = JSON.parse(JSON.stringify(tableDefToJSON(def)));
    expect(parseStoredTableDef(stored, defaultSettings)).toEqual(def);
  });

  it('keeps the stored settings when the process defaults change later', () => {
    const def = parseCreateTable(sampleCreate(), defaultSettings);
    const stored = JSON.parse(JSON.stringify(tableDefToJSON(def)));
    const later = { ...defaultSettings, mergeAfterGenerations: 99 };
    expect(parseStoredTableDef(stored, later).settings).toEqual(defaultSettings);
  });
});

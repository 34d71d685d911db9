import { describe, expect, it } from 'vitest';
import { parseCreateTable, parseStoredTableDef, tableDefToJSON } from '../../../shared/table/table-def.ts';
import { defaultSettings } from '../../support/sample-table.ts';

const fields = [
  { name: 'id', type: 'int64', nullable: false },
  { name: 'ts', type: 'timestamp[ms]', nullable: false },
  { name: 'ts_us', type: 'timestamp[us]', nullable: false },
  { name: 'maybe', type: 'timestamp[ms]', nullable: true },
  { name: 'n', type: 'int64', nullable: false },
];

function create(retention: unknown, primaryKey = ['id']) {
  return parseCreateTable({ name: 't', schema: { fields }, primaryKey, retention }, defaultSettings);
}

describe('retention in a table definition (docs/design.md, "Retention")', () => {
  it('accepts a timestamp column, not nullable, not in the key, and an age of at least a minute', () => {
    expect(create({ column: 'ts', maxAgeSeconds: 60 }).retention).toEqual({
      column: 'ts',
      maxAgeSeconds: 60,
    });
    expect(create({ column: 'ts_us', maxAgeSeconds: 86_400 }).retention).toEqual({
      column: 'ts_us',
      maxAgeSeconds: 86_400,
    });
  });

  it('declares a btree index on its column, unless the create body declares one', () => {
    expect(create({ column: 'ts', maxAgeSeconds: 60 }).indexes).toEqual([{ column: 'ts', type: 'btree' }]);
    const bitmap = parseCreateTable(
      {
        name: 't',
        schema: { fields },
        primaryKey: ['id'],
        retention: { column: 'ts', maxAgeSeconds: 60 },
        indexes: [{ column: 'ts', type: 'bitmap' }],
      },
      defaultSettings,
    );
    expect(bitmap.indexes).toEqual([{ column: 'ts', type: 'bitmap' }]);
    expect(create(undefined).indexes).toEqual([]);
  });

  it('is null when absent, and a stored definition keeps it', () => {
    expect(create(undefined).retention).toBeNull();
    const def = create({ column: 'ts', maxAgeSeconds: 3600 });
    const stored = parseStoredTableDef(JSON.parse(JSON.stringify(tableDefToJSON(def))), defaultSettings);
    expect(stored.retention).toEqual({ column: 'ts', maxAgeSeconds: 3600 });
    const { retention: _, ...older } = tableDefToJSON(create(undefined));
    expect(parseStoredTableDef(older, defaultSettings).retention).toBeNull();
  });

  it.each([
    ['a nullable column', { column: 'maybe', maxAgeSeconds: 60 }, /nullable/],
    ['a column that is not a timestamp', { column: 'n', maxAgeSeconds: 60 }, /not a timestamp/],
    ['a column the table lacks', { column: 'nope', maxAgeSeconds: 60 }, /name a column/],
    ['an age of 0', { column: 'ts', maxAgeSeconds: 0 }, /maxAgeSeconds/],
    ['an age under a minute', { column: 'ts', maxAgeSeconds: 59 }, /maxAgeSeconds/],
    ['a fractional age', { column: 'ts', maxAgeSeconds: 60.5 }, /maxAgeSeconds/],
    ['an age as a string', { column: 'ts', maxAgeSeconds: '3600' }, /maxAgeSeconds/],
    ['an unknown property', { column: 'ts', maxAgeSeconds: 60, notBefore: 1 }, /unknown retention property/],
    ['something not an object', 'ts', /must be an object/],
  ])('refuses %s with INVALID_SETTINGS saying what to send', (_, retention, reason) => {
    expect(() => create(retention)).toThrow(
      expect.objectContaining({ code: 'INVALID_SETTINGS', message: expect.stringMatching(reason) }),
    );
    expect(() => create(retention)).toThrow(/send \{"column"/);
  });

  it('refuses a key column, which is never a timestamp', () => {
    expect(() => create({ column: 'id', maxAgeSeconds: 60 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_SETTINGS',
        message: expect.stringMatching(/not a timestamp/),
      }),
    );
  });
});

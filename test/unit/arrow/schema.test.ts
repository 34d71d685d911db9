import { describe, expect, it } from 'vitest';
import {
  columnTypeOfArrow,
  formatColumnType,
  parseColumnType,
  toArrowType,
} from '../../../shared/arrow/column-type.ts';
import { keyColumns, parseTableSchema, schemaToJSON, toArrowSchema } from '../../../shared/arrow/schema.ts';
import { sampleFields } from '../../support/sample-table.ts';

describe('column types', () => {
  it.each([
    ['int32', 'int32'],
    ['int64', 'int64'],
    ['float32', 'float32'],
    ['float64', 'float64'],
    ['bool', 'bool'],
    ['utf8', 'utf8'],
    ['binary', 'binary'],
    ['timestamp[ms]', 'timestamp[ms]'],
    ['timestamp[ us ]', 'timestamp[us]'],
    ['vector[float32, 768]', 'vector[float32, 768]'],
    ['vector[ float32 ,1 ]', 'vector[float32, 1]'],
    ['vector[float32,65536]', 'vector[float32, 65536]'],
  ])('parses %j (canonical %j) and maps it to Arrow and back', (text, canonical) => {
    const parsed = parseColumnType(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(formatColumnType(parsed.type)).toBe(canonical);
    expect(columnTypeOfArrow(toArrowType(parsed.type))).toEqual(parsed.type);
  });

  it('explains why a type is refused', () => {
    expect(parseColumnType('vector[float32, 0]')).toEqual({
      ok: false,
      reason: 'vector dimension must be at least 1, got 0',
    });
    expect(parseColumnType('timestamp[s]')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('ms or us'),
    });
  });
});

describe('table schema', () => {
  const schema = parseTableSchema({ fields: sampleFields }, ['id']);

  it('makes nullability explicit: primary-key columns default to not null, others to nullable', () => {
    const parsed = parseTableSchema(
      {
        fields: [
          { name: 'tenant', type: 'utf8' },
          { name: 'n', type: 'int32' },
          { name: 'note', type: 'utf8' },
          { name: 'must', type: 'utf8', nullable: false },
        ],
      },
      ['tenant', 'n'],
    );
    expect(schemaToJSON(parsed).fields.map((f) => [f.name, f.nullable])).toEqual([
      ['tenant', false],
      ['n', false],
      ['note', true],
      ['must', false],
    ]);
    expect(keyColumns(parsed)).toEqual([
      { name: 'tenant', kind: 'utf8' },
      { name: 'n', kind: 'int32' },
    ]);
  });

  it('keeps the primary key in the order given, not schema order', () => {
    const parsed = parseTableSchema(
      {
        fields: [
          { name: 'a', type: 'int32' },
          { name: 'b', type: 'int64' },
        ],
      },
      ['b', 'a'],
    );
    expect(parsed.primaryKey).toEqual(['b', 'a']);
  });

  it('round-trips through its JSON form unchanged', () => {
    const json = schemaToJSON(schema);
    expect(parseTableSchema(JSON.parse(JSON.stringify(json)), schema.primaryKey)).toEqual(schema);
    expect(json.fields.find((f) => f.name === 'emb')).toEqual({
      name: 'emb',
      type: 'vector[float32, 3]',
      nullable: true,
    });
  });

  it('builds the Arrow schema with the same names, types and nullability', () => {
    expect(toArrowSchema(schema).fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '?' : ''}`)).toEqual([
      'id: Int64',
      'count: Int32',
      'big: Int64?',
      'ratio: Float64?',
      'small: Float32?',
      'ok: Bool?',
      'label: Utf8?',
      'blob: Binary?',
      'at: Timestamp<MILLISECOND>?',
      'at_us: Timestamp<MICROSECOND>?',
      'emb: FixedSizeList[3]<Float32>?',
    ]);
  });

  it('accepts 1024 columns and 128-character names', () => {
    const fields = Array.from({ length: 1024 }, (_, i) => ({
      name: `c${i}`.padEnd(128, '_'),
      type: 'int32',
    }));
    expect(parseTableSchema({ fields }, [fields[0]!.name]).fields).toHaveLength(1024);
  });
});

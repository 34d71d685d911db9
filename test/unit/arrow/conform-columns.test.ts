import {
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { conformColumns, conformTable } from '../../../shared/arrow/conform-columns.ts';

const old = new Schema([new Field('n', new Int32(), true), new Field('f', new Float32(), true)]);
const wide = new Schema([
  new Field('n', new Int64(), true),
  new Field('f', new Float64(), true),
  new Field('added', new Utf8(), true),
]);

function oldRows(): RecordBatch {
  const children = [
    vectorFromArray([7, -2147483648, null, 2147483647], new Int32()).data[0]!,
    vectorFromArray([1, Number.NaN, Number.NEGATIVE_INFINITY, null], new Float32()).data[0]!,
  ];
  return new RecordBatch(old, makeData({ type: new Struct(old.fields), length: 4, nullCount: 0, children }));
}

describe('rows of an older schema read under a newer one', () => {
  it('widens int32 and float32 exactly, keeps nulls, and reads an added column as null, also from a slice', () => {
    const whole = conformColumns(wide, oldRows());
    expect(whole.toArray().map((r) => r.toJSON())).toEqual([
      { n: 7n, f: 1, added: null },
      { n: -2147483648n, f: Number.NaN, added: null },
      { n: null, f: Number.NEGATIVE_INFINITY, added: null },
      { n: 2147483647n, f: null, added: null },
    ]);
    const sliced = conformColumns(wide, oldRows().slice(1, 3));
    expect(sliced.toArray().map((r) => r.toJSON())).toEqual([
      { n: -2147483648n, f: Number.NaN, added: null },
      { n: null, f: Number.NEGATIVE_INFINITY, added: null },
    ]);
  });

  it('passes a table of the same columns on as it is, with nothing copied', () => {
    const table = new Table([oldRows()]);
    expect(conformTable(old, table)).toBe(table);
    expect(conformTable(wide, table).schema).toBe(wide);
  });
});

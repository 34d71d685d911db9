import { tableFromIPC, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  jsonRowsToRecordBatch,
  jsonRowsToTable,
  MAX_REFUSED_ROWS,
  tableToJsonRows,
} from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema, toArrowSchema } from '../../../shared/arrow/schema.ts';
import { fullRow, sampleFields } from '../../support/sample-table.ts';

const schema = parseTableSchema({ fields: sampleFields }, ['id']);

function roundTrip(rows: unknown[]) {
  const table = tableFromIPC(tableToIPC(jsonRowsToTable(schema, rows)));
  return tableToJsonRows(schema, table);
}

/** A row of the sample table with only its non-nullable columns set. */
function nullsBut(id: number, count: number): Record<string, unknown> {
  return { ...Object.fromEntries(sampleFields.map((field) => [field.name, null])), id, count };
}

describe('JSON rows → Arrow', () => {
  it('builds one batch with the table Arrow schema and every value in place', () => {
    const rows = Array.from({ length: 300 }, (_, i) => fullRow(i));
    const batch = jsonRowsToRecordBatch(schema, rows);
    expect(batch.numRows).toBe(300);
    expect(batch.schema.fields.map(String)).toEqual(toArrowSchema(schema).fields.map(String));
    const back = roundTrip(rows);
    expect(back).toEqual(
      rows.map((r) => ({ ...r, big: String(r.big), emb: r.emb, small: Math.fround(r.small as number) })),
    );
  });

  it('fills omitted and null nullable columns with nulls', () => {
    expect(
      roundTrip([
        { id: 1, count: 2 },
        { id: 2, count: 3, label: null, emb: null },
      ]),
    ).toEqual([nullsBut(1, 2), nullsBut(2, 3)]);
  });

  it('keeps int64 exact: numbers up to 2^53, decimal strings to the int64 limits', () => {
    const big = ['9223372036854775807', '-9223372036854775808', '9007199254740993', '-12', '0'];
    const out = roundTrip(big.map((b, i) => ({ id: i, count: 0, big: b })));
    expect(out.map((r) => r.big)).toEqual([
      '9223372036854775807',
      '-9223372036854775808',
      '9007199254740993',
      -12,
      0,
    ]);
    const ids = roundTrip([
      { id: Number.MAX_SAFE_INTEGER, count: 0 },
      { id: Number.MIN_SAFE_INTEGER, count: 0 },
    ]);
    expect(ids.map((r) => r.id)).toEqual([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);
  });

  it('takes "NaN" and ±"Infinity" for float columns and gives them back the same way', () => {
    const out = roundTrip([
      { id: 1, count: 0, ratio: 'NaN', small: 'Infinity', emb: ['-Infinity', 0, 'NaN'] },
      { id: 2, count: 0, ratio: -0.5, small: 3.4e38 },
    ]);
    expect(out.map((r) => [r.ratio, r.small, r.emb])).toEqual([
      ['NaN', 'Infinity', ['-Infinity', 0, 'NaN']],
      [-0.5, Math.fround(3.4e38), null],
    ]);
  });

  it('reads ISO-8601 timestamps as UTC unless they carry an offset', () => {
    const at = (value: string) => roundTrip([{ id: 1, count: 0, at: value, at_us: value }])[0]!;
    expect(at('2024-01-02T03:04:05.678Z')).toMatchObject({ at: 1704164645678, at_us: 1704164645678000 });
    expect(at('2024-01-02T03:04:05.678')).toMatchObject({ at: 1704164645678 });
    expect(at('2024-01-02 03:04:05.678+01:00')).toMatchObject({ at: 1704164645678 - 3_600_000 });
    expect(at('2024-01-02T03:04:05.678-0230')).toMatchObject({ at: 1704164645678 + 9_000_000 });
    expect(at('2024-01-02')).toMatchObject({ at: 1704153600000 });
    expect(at('2024-02-29T00:00Z')).toMatchObject({ at: 1709164800000 });
    expect(at('1969-12-31T23:59:59.999Z')).toMatchObject({ at: -1, at_us: -1000 });
    expect(at('0001-01-01T00:00:00Z')).toMatchObject({ at: -62135596800000 });
    expect(at('2024-01-02T03:04:05.678000000Z')).toMatchObject({ at: 1704164645678 });
    const us = roundTrip([{ id: 1, count: 0, at_us: '2024-01-02T03:04:05.123456Z' }])[0]!;
    expect(us.at_us).toBe(1704164645123456);
  });

  it('takes timestamps as integers in the column unit, decimal strings beyond 2^53', () => {
    const out = roundTrip([{ id: 1, count: 0, at: -5, at_us: '9007199254740993' }])[0]!;
    expect(out).toMatchObject({ at: -5, at_us: '9007199254740993' });
  });

  it('stores utf8 exactly, ASCII or not, NUL included', () => {
    const labels = ['', 'plain', 'é', 'a\u0000b', '😀'.repeat(50), '中文', 'x'.repeat(10_000)];
    const out = roundTrip(labels.map((label, i) => ({ id: i, count: 0, label })));
    expect(out.map((r) => r.label)).toEqual(labels);
  });

  it('stores binary from padded base64, empty included', () => {
    const blobs = [
      '',
      'AA==',
      'AAE=',
      'AAEC',
      Buffer.from(Array.from({ length: 300 }, (_, i) => i & 0xff)).toString('base64'),
    ];
    const out = roundTrip(blobs.map((blob, i) => ({ id: i, count: 0, blob })));
    expect(out.map((r) => r.blob)).toEqual(blobs);
  });

  it('reads columns named like Object.prototype members only from the row itself', () => {
    const odd = parseTableSchema(
      {
        fields: [
          { name: 'id', type: 'int32' },
          { name: 'constructor', type: 'utf8' },
          { name: 'toString', type: 'int32', nullable: true },
          { name: 'hasOwnProperty', type: 'bool' },
        ],
      },
      ['id'],
    );
    const rows = JSON.parse('[{"id":1},{"id":2,"constructor":"c","toString":5,"hasOwnProperty":true}]');
    const out = tableToJsonRows(odd, jsonRowsToTable(odd, rows));
    expect(out).toEqual([
      { id: 1, constructor: null, toString: null, hasOwnProperty: null },
      { id: 2, constructor: 'c', toString: 5, hasOwnProperty: true },
    ]);
    expect(Object.hasOwn(out[0]!, 'constructor')).toBe(true);
  });

  it('accepts rows without a prototype and ignores keys whose value is undefined', () => {
    const row = Object.assign(Object.create(null) as Record<string, unknown>, {
      id: 1,
      count: 1,
      label: undefined,
    });
    expect(roundTrip([row])[0]).toMatchObject({ id: 1, label: null });
  });

  it('refuses a class instance as a row', () => {
    expect(() => jsonRowsToTable(schema, [new Date()])).toThrow(
      expect.objectContaining({ code: 'INVALID_ROWS' }),
    );
  });
});

describe('a refusal of JSON rows', () => {
  const schema = parseTableSchema(
    {
      fields: [
        { name: 'id', type: 'int64', nullable: false },
        { name: 'name', type: 'utf8', nullable: true },
      ],
    },
    ['id'],
  );

  function refusal(rows: unknown[]) {
    try {
      jsonRowsToRecordBatch(schema, rows);
    } catch (err) {
      return err as {
        code: string;
        message: string;
        details: { row: number; rows: Array<{ row: number; column: string | null; message: string }> };
      };
    }
    throw new Error('the rows were taken');
  }

  it('names every refused row in row order, whatever column refused it, beside the first one it met', () => {
    const rows: unknown[] = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `n${i}` }));
    rows[700] = { id: 'x', name: 'a' };
    rows[3] = { id: 3, name: 5 };
    rows[999] = { id: 999, name: 'z', extra: 1 };
    rows[256] = 'not a row';
    const err = refusal(rows);
    expect(err.code).toBe('INVALID_ROWS');
    expect(err.details.rows.map((r) => [r.row, r.column])).toEqual([
      [3, 'name'],
      [256, null],
      [700, 'id'],
      [999, 'extra'],
    ]);
    expect(err.details.rows.map((r) => r.message.slice(0, 9))).toEqual([
      'row 3, co',
      'row 256: ',
      'row 700, ',
      'row 999: ',
    ]);
    expect(err.details.rows.map((r) => r.row)).toContain(err.details.row);
  });

  it('names at most MAX_REFUSED_ROWS of them', () => {
    const rows = Array.from({ length: MAX_REFUSED_ROWS + 10 }, (_, i) => ({ id: i, name: i }));
    expect(refusal(rows).details.rows).toHaveLength(MAX_REFUSED_ROWS);
  });
});

describe('Arrow → JSON rows', () => {
  it('reads sliced batches and multi-batch tables', () => {
    const rows = Array.from({ length: 40 }, (_, i) => (i % 3 ? fullRow(i) : { id: i, count: i }));
    const expected = roundTrip(rows);
    const batch = jsonRowsToRecordBatch(schema, rows);
    expect(tableToJsonRows(schema, batch.slice(7, 29))).toEqual(expected.slice(7, 29));
    const table = jsonRowsToTable(schema, rows.slice(0, 20)).concat(jsonRowsToTable(schema, rows.slice(20)));
    expect(tableToJsonRows(schema, table)).toEqual(expected);
  });

  it('gives only the schema columns, in schema order', () => {
    const narrow = parseTableSchema(
      {
        fields: [
          { name: 'label', type: 'utf8' },
          { name: 'id', type: 'int64' },
        ],
      },
      ['id'],
    );
    const out = tableToJsonRows(narrow, jsonRowsToTable(schema, [fullRow(3)]));
    expect(out).toEqual([{ label: fullRow(3).label, id: 3 }]);
    expect(Object.keys(out[0]!)).toEqual(['label', 'id']);
  });
});

import { describe, expect, it } from 'vitest';
import { jsonRowsToTable } from '../../../shared/arrow/json-rows.ts';
import { compareBytes, type KeyValue, keyAt, keyCodecFor } from '../../../shared/arrow/key-codec.ts';
import { parseTableSchema } from '../../../shared/arrow/schema.ts';
import { isSluiceError } from '../../../shared/errors.ts';
import { seededRandom } from '../../support/random.ts';

const composite = parseTableSchema(
  {
    fields: [
      { name: 'tenant', type: 'utf8' },
      { name: 'day', type: 'int32' },
      { name: 'seq', type: 'int64' },
      { name: 'note', type: 'utf8' },
      { name: 'payload', type: 'binary' },
    ],
  },
  ['tenant', 'day', 'seq', 'note'],
);
const codec = keyCodecFor(composite);

// Small alphabets make equal values and prefixes common; the odd characters test escaping
// (NUL), multi-byte UTF-8, and code point order against UTF-16 order (U+FFFF vs U+1F600).
const CHARS = ['a', 'b', '\u0000', '\u0001', 'é', '\uffff', '\ue000', '😀', '\u00ff'];
const INT32S = [-(2 ** 31), -1, 0, 1, 2 ** 31 - 1, 255, 256, -256];
const INT64S = [
  -(2n ** 63n),
  -(2n ** 32n),
  -1n,
  0n,
  1n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 53n + 1n,
  2n ** 63n - 1n,
];

function randomKey(next: () => number): KeyValue[] {
  const text = () =>
    Array.from({ length: Math.floor(next() * 4) }, () => CHARS[Math.floor(next() * CHARS.length)]).join('');
  const int32 = () =>
    next() < 0.5 ? INT32S[Math.floor(next() * INT32S.length)]! : Math.floor(next() * 200) - 100;
  const int64 = () =>
    next() < 0.5 ? INT64S[Math.floor(next() * INT64S.length)]! : BigInt(Math.floor(next() * 2000) - 1000);
  return [text(), int32(), int64(), text()];
}

function codePoints(text: string): number[] {
  return [...text].map((c) => c.codePointAt(0)!);
}

function compareValues(a: KeyValue, b: KeyValue): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = codePoints(a);
    const y = codePoints(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return Math.sign(x.length - y.length);
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareTuples(a: KeyValue[], b: KeyValue[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareValues(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

describe('key codec: order-preserving primary-key bytes', () => {
  it('orders encoded keys exactly as the key tuples, column by column', () => {
    const next = seededRandom(20260101);
    for (let i = 0; i < 20_000; i++) {
      const a = randomKey(next);
      const b = next() < 0.2 ? [...a] : randomKey(next);
      expect(
        Math.sign(compareBytes(codec.encode(a), codec.encode(b))),
        JSON.stringify([a, b], replacer),
      ).toBe(compareTuples(a, b));
    }
  });

  it('sorts a random set of keys like the tuples (code point order, not UTF-16 order)', () => {
    const next = seededRandom(7);
    const keys = Array.from({ length: 2000 }, () => randomKey(next));
    const byBytes = [...keys].sort((a, b) => compareBytes(codec.encode(a), codec.encode(b)));
    const byTuples = [...keys].sort(compareTuples);
    expect(byBytes.map((k) => JSON.stringify(k, replacer))).toEqual(
      byTuples.map((k) => JSON.stringify(k, replacer)),
    );
    expect(compareBytes(codec.encode(['\uffff', 0, 0n, '']), codec.encode(['😀', 0, 0n, '']))).toBeLessThan(
      0,
    );
  });

  it('decodes what it encodes', () => {
    const next = seededRandom(99);
    for (let i = 0; i < 2000; i++) {
      const key = randomKey(next);
      expect(codec.decode(codec.encode(key))).toEqual(key);
    }
  });

  it('takes int64 as a safe-integer number too, with the same bytes as the bigint', () => {
    const one = keyCodecFor(parseTableSchema({ fields: [{ name: 'id', type: 'int64' }] }, ['id']));
    for (const n of [0, 1, -1, 2 ** 32, -(2 ** 32) - 5, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      expect(one.encode([n])).toEqual(one.encode([BigInt(n)]));
    }
  });

  it('encodes the keys of Arrow rows from the buffers, as encode() does from values', () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({
      tenant: `t\u0000${i % 3}é`,
      day: i - 25,
      seq: i % 2 ? String(2n ** 62n + BigInt(i)) : -i,
      note: '',
      payload: null,
    }));
    const table = jsonRowsToTable(composite, rows);
    const expected = rows.map((r) => codec.encode([r.tenant, r.day, BigInt(r.seq), r.note]));
    expect(codec.encodeRows(table)).toEqual(expected);
    expect(codec.encodeRows(table.batches[0]!.slice(10, 15))).toEqual(expected.slice(10, 15));
  });

  it('packs the keys of several batches into one buffer, in row order, zero bytes escaped', () => {
    // Zero bytes first, last and alone in a string, each escaped in its own row's key.
    const tenants = ['\u0000', '\u0000t', 't\u0000', '', 't\u0000\u0000u'];
    const rows = Array.from({ length: 20 }, (_, i) => ({
      tenant: tenants[i % 5]!,
      day: i,
      seq: -i,
      note: i % 2 ? '\u0000' : 'n',
    }));
    const batch = jsonRowsToTable(composite, rows).batches[0]!;
    const parts = [batch.slice(0, 7), batch.slice(7, 7), batch.slice(7, 20)];
    const packed = codec.encodeRowsPacked(parts);
    const expected = rows.map((r) => codec.encode([r.tenant, r.day, BigInt(r.seq), r.note]));
    expect(packed.count).toBe(20);
    expect(Array.from({ length: 20 }, (_, i) => keyAt(packed, i))).toEqual(expected);
    expect(packed.bytes.length).toBe(expected.reduce((sum, key) => sum + key.length, 0));
  });

  it('refuses malformed encoded keys as DATA_CORRUPT', () => {
    const good = codec.encode(['a', 1, 1n, 'b']);
    for (const bad of [good.subarray(0, 3), good.subarray(0, good.length - 1), Uint8Array.of(...good, 0)]) {
      expect(() => codec.decode(bad)).toThrow(expect.objectContaining({ code: 'DATA_CORRUPT' }));
    }
    expect(() => codec.decode(Uint8Array.of(0x61, 0x00, 0x05))).toThrow(
      expect.objectContaining({ code: 'DATA_CORRUPT' }),
    );
  });

  describe('parse: keys as clients send them', () => {
    const single = keyCodecFor(parseTableSchema({ fields: [{ name: 'id', type: 'int64' }] }, ['id']));
    const int32Key = keyCodecFor(parseTableSchema({ fields: [{ name: 'n', type: 'int32' }] }, ['n']));

    it('accepts a scalar or a one-element array for a one-column key', () => {
      expect(single.parse(5)).toEqual([5n]);
      expect(single.parse([5])).toEqual([5n]);
      expect(single.parse('9223372036854775807')).toEqual([2n ** 63n - 1n]);
      expect(single.parse('-12')).toEqual([-12n]);
    });

    it('accepts an array in primary-key order for a composite key', () => {
      expect(codec.parse(['acme', 3, '18014398509481985', 'x'])).toEqual([
        'acme',
        3,
        18014398509481985n,
        'x',
      ]);
    });

    it.each([
      ['a scalar for a composite key', codec, 'acme'],
      ['too few values', codec, ['acme', 3, 1]],
      ['too many values', codec, ['acme', 3, 1, 'x', 'y']],
      ['an empty array', single, []],
      ['int64 as a fraction', single, 1.5],
      ['int64 beyond 2^53 as a number', single, 2 ** 53 + 2],
      ['int64 above range as a string', single, '9223372036854775808'],
      ['int64 as "NaN"', single, 'NaN'],
      ['int64 as a boolean', single, true],
      ['int64 as null', single, null],
      ['int32 above range', int32Key, 2 ** 31],
      ['int32 as a string', int32Key, '5'],
      ['utf8 as a number', codec, [7, 3, 1, 'x']],
      ['utf8 with a lone surrogate', codec, ['\ud800', 3, 1, 'x']],
      ['an object', single, { id: 1 }],
    ])('refuses %s with INVALID_KEY', (_name, keyCodec, input) => {
      let caught: unknown;
      try {
        keyCodec.parse(input);
      } catch (err) {
        caught = err;
      }
      expect(isSluiceError(caught, 'INVALID_KEY')).toBe(true);
    });

    it('names the key column and what it expects', () => {
      expect(() => codec.parse(['acme', 'three', 1, 'x'])).toThrow(
        expect.objectContaining({ code: 'INVALID_KEY', details: expect.objectContaining({ column: 'day' }) }),
      );
    });
  });
});

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

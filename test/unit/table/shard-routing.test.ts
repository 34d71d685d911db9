import { describe, expect, it } from 'vitest';
import { type KeyValue, keyCodecFor } from '../../../shared/arrow/key-codec.ts';
import { parseTableSchema } from '../../../shared/arrow/schema.ts';
import { fnv1a32, shardOf, shardsOfKeys } from '../../../shared/table/shard-routing.ts';

const int64Key = keyCodecFor(parseTableSchema({ fields: [{ name: 'id', type: 'int64' }] }, ['id']));
const utf8Key = keyCodecFor(parseTableSchema({ fields: [{ name: 'k', type: 'utf8' }] }, ['k']));
const compositeKey = keyCodecFor(
  parseTableSchema(
    {
      fields: [
        { name: 't', type: 'utf8' },
        { name: 'n', type: 'int32' },
      ],
    },
    ['t', 'n'],
  ),
);

describe('shard routing: FNV-1a 32 of the encoded key, mod shards', () => {
  it('computes the published FNV-1a 32-bit vectors', () => {
    expect(fnv1a32(Buffer.from(''))).toBe(0x811c9dc5);
    expect(fnv1a32(Buffer.from('a'))).toBe(0xe40c292c);
    expect(fnv1a32(Buffer.from('foobar'))).toBe(0xbf9cf968);
  });

  // Pinned forever: a change here moves existing keys to other shards and breaks their order.
  const vectors: Array<[string, typeof int64Key, KeyValue[], string, number, [number, number, number]]> = [
    ['int64 0', int64Key, [0n], '8000000000000000', 3945914597, [1, 5, 229]],
    ['int64 1', int64Key, [1n], '8000000000000001', 3929136978, [2, 2, 850]],
    ['int64 -1', int64Key, [-1n], '7fffffffffffffff', 3585728989, [1, 13, 477]],
    ['int64 42', int64Key, [42n], '800000000000002a', 3509696503, [3, 7, 1015]],
    ['int64 2^53+1', int64Key, [9007199254740993n], '8020000000000001', 1960672946, [2, 2, 690]],
    ['int64 min', int64Key, [-(2n ** 63n)], '0000000000000000', 2615243109, [1, 5, 357]],
    ['int64 max', int64Key, [2n ** 63n - 1n], 'ffffffffffffffff', 1823345245, [1, 13, 605]],
    ['utf8 empty', utf8Key, [''], '0001', 276207162, [2, 10, 570]],
    ['utf8 user-1', utf8Key, ['user-1'], '757365722d310001', 2466650663, [3, 7, 551]],
    ['utf8 with NUL', utf8Key, ['a\u0000b'], '6100ff620001', 591268430, [2, 14, 590]],
    ['utf8 é', utf8Key, ['é'], 'c3a90001', 1177710486, [2, 6, 918]],
    ['utf8 emoji', utf8Key, ['😀'], 'f09f98800001', 104815323, [3, 11, 731]],
    [
      'utf8+int32 (tenant, 7)',
      compositeKey,
      ['tenant', 7],
      '74656e616e74000180000007',
      982411611,
      [3, 11, 347],
    ],
    [
      'utf8+int32 (tenant, -7)',
      compositeKey,
      ['tenant', -7],
      '74656e616e7400017ffffff9',
      34666236,
      [0, 12, 764],
    ],
  ];

  it.each(vectors)('%s', (_name, codec, key, bytes, hash, [of4, of16, of1024]) => {
    const encoded = codec.encode(key);
    expect(Buffer.from(encoded).toString('hex')).toBe(bytes);
    expect(fnv1a32(encoded)).toBe(hash);
    expect([shardOf(encoded, 4), shardOf(encoded, 16), shardOf(encoded, 1024)]).toEqual([of4, of16, of1024]);
    expect(shardOf(encoded, 1)).toBe(0);
  });

  it('spreads sequential integer keys and random strings evenly', () => {
    const counts = new Array(8).fill(0);
    for (let i = 0; i < 80_000; i++) counts[shardOf(int64Key.encode([BigInt(i)]), 8)]++;
    for (let i = 0; i < 80_000; i++) counts[shardOf(utf8Key.encode([`user-${i * 7919}`]), 8)]++;
    for (const count of counts) expect(Math.abs(count - 20_000)).toBeLessThan(20_000 * 0.05);
  });

  it('routes keys where they lie packed (shardsOfKeys) to the shard of each key alone: the pinned vectors and 5,000 more', () => {
    const packed = (codec: typeof int64Key, keys: KeyValue[][]) => {
      const encoded = keys.map((key) => codec.encode(key));
      const offsets = new Int32Array(encoded.length + 1);
      for (const [i, key] of encoded.entries()) offsets[i + 1] = offsets[i]! + key.length;
      const bytes = new Uint8Array(offsets[encoded.length]!);
      for (const [i, key] of encoded.entries()) bytes.set(key, offsets[i]!);
      return { encoded, keys: { count: encoded.length, bytes, offsets } };
    };
    const sets = [
      packed(int64Key, [
        ...vectors.filter((v) => v[1] === int64Key).map((v) => v[2]),
        ...Array.from({ length: 2_500 }, (_, i) => [BigInt(i * 104_729 - 1_000_000)]),
      ]),
      packed(
        utf8Key,
        Array.from({ length: 2_500 }, (_, i) => [`user-${i * 7919}${i % 7 === 0 ? '\u0000' : ''}`]),
      ),
      packed(
        compositeKey,
        vectors.filter((v) => v[1] === compositeKey).map((v) => v[2]),
      ),
    ];
    for (const shards of [1, 4, 16, 1024]) {
      for (const { encoded, keys } of sets) {
        expect([...shardsOfKeys(keys, shards)]).toEqual(encoded.map((key) => shardOf(key, shards)));
      }
    }
    expect(() => shardsOfKeys(sets[0]!.keys, 0)).toThrow(RangeError);
  });

  it('refuses a shard count below 1', () => {
    expect(() => shardOf(Uint8Array.of(1), 0)).toThrow(RangeError);
    expect(() => shardOf(Uint8Array.of(1), 1.5)).toThrow(RangeError);
  });
});

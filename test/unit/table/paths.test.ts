import { describe, expect, it } from 'vitest';
import {
  baseManifestKey,
  generationKey,
  numberFromKey,
  parseObjectKey,
  shardManifestKey,
  tableConfigKey,
  tableDrainKey,
  tableWalKey,
  tableWalPrefix,
  walKey,
  walPrefix,
} from '../../../shared/table/paths.ts';

describe('object layout (docs/design.md, "Object layout")', () => {
  it.each([
    [tableConfigKey('t1'), 'tables/t1/table.json', { kind: 'table-config', table: 't1' }],
    [tableDrainKey('t1'), 'tables/t1/drain.json', { kind: 'table-drain', table: 't1' }],
    [
      tableWalKey('t1', 42),
      'tables/t1/wal/00000000000000000042.arrow',
      { kind: 'table-wal', table: 't1', seq: 42 },
    ],
    [
      walKey('t1', 3, 42),
      'tables/t1/shards/3/wal/00000000000000000042.arrow',
      { kind: 'wal', table: 't1', shard: 3, seq: 42 },
    ],
    [
      generationKey('a.b-c', 0, 1),
      'tables/a.b-c/shards/0/gen/00000000000000000001.arrow',
      { kind: 'generation', table: 'a.b-c', shard: 0, generation: 1 },
    ],
    [
      shardManifestKey('t1', 1023, 7),
      'tables/t1/shards/1023/_manifest/00000000000000000007.json',
      { kind: 'shard-manifest', table: 't1', shard: 1023, version: 7 },
    ],
    [
      baseManifestKey('t1', Number.MAX_SAFE_INTEGER),
      'tables/t1/base/_manifest/00009007199254740991.json',
      { kind: 'base-manifest', table: 't1', version: Number.MAX_SAFE_INTEGER },
    ],
  ])('%s', (key, expected, parsed) => {
    expect(key).toBe(expected);
    expect(parseObjectKey(key)).toEqual(parsed);
  });

  it('pads numbers so a plain listing is in numeric order', () => {
    const keys = [10, 9, 100, 1].map((seq) => walKey('t', 0, seq));
    expect([...keys].sort()).toEqual([1, 9, 10, 100].map((seq) => walKey('t', 0, seq)));
    expect(walKey('t', 0, 9).startsWith(walPrefix('t', 0))).toBe(true);
    expect(numberFromKey(walKey('t', 0, 9))).toBe(9);
    const lane = [10, 9, 100, 1].map((seq) => tableWalKey('t', seq));
    expect([...lane].sort()).toEqual([1, 9, 10, 100].map((seq) => tableWalKey('t', seq)));
    expect(tableWalKey('t', 9).startsWith(tableWalPrefix('t'))).toBe(true);
    expect(numberFromKey(tableWalKey('t', 9))).toBe(9);
  });

  it('refuses parts that would leave the table prefix or alias another object', () => {
    expect(() => tableConfigKey('..')).toThrow(expect.objectContaining({ code: 'INVALID_TABLE_NAME' }));
    expect(() => walKey('a/b', 0, 1)).toThrow(expect.objectContaining({ code: 'INVALID_TABLE_NAME' }));
    expect(() => walKey('t', -1, 1)).toThrow(RangeError);
    expect(() => walKey('t', 0.5, 1)).toThrow(RangeError);
    expect(() => walKey('t', 0, -1)).toThrow(RangeError);
    expect(() => generationKey('t', 0, 2 ** 53)).toThrow(RangeError);
    expect(() => tableWalKey('a/b', 1)).toThrow(expect.objectContaining({ code: 'INVALID_TABLE_NAME' }));
    expect(() => tableWalKey('t', -1)).toThrow(RangeError);
    expect(() => tableWalKey('t', 1.5)).toThrow(RangeError);
  });

  it('does not parse keys outside the layout', () => {
    for (const key of [
      'tables/t1/table.jsonx',
      'tables/../table.json',
      'tables/t1/shards/01/wal/00000000000000000001.arrow',
      'tables/t1/shards/0/wal/1.arrow',
      'tables/t1/shards/0/wal/99999999999999999999.arrow',
      'tables/t1/wal/1.arrow',
      'tables/t1/wal/99999999999999999999.arrow',
      'tables/t1/wal/00000000000000000001.json',
      'tables/t1/wal/0/00000000000000000001.arrow',
      'tables/t1/base.lance/_versions/1.manifest',
      'other/t1/table.json',
    ]) {
      expect(parseObjectKey(key), key).toBeNull();
    }
    expect(numberFromKey('tables/t1/table.json')).toBeNull();
  });
});

/**
 * What made each version of a Lance dataset, read from the dataset's files through the
 * file store: every kind of commit LanceDB makes on a base, classified by whether it can
 * change a row.
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitsBetween } from '../../shared/base/lance-commits.ts';
import { createTempDir, type TempDir } from '../support/temp-dir.ts';

const { lancedb } = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

describe('the commits of a base dataset', () => {
  let dir: TempDir;

  beforeEach(async () => {
    dir = await createTempDir('lance-commits');
  });
  afterEach(() => dir.cleanup());

  it('names each operation and says which ones leave every row as it was', async () => {
    const db = await lancedb.connect(`${dir.path}/tables/t`);
    const base = await db.createTable('base', [
      { id: 1n, v: 'a', e: [1, 0] },
      { id: 2n, v: 'b', e: [0, 1] },
    ]);
    const made: Array<[string, () => Promise<unknown>]> = [
      ['Append', () => base.add([{ id: 3n, v: 'c', e: [1, 1] }])],
      ['CreateIndex', () => base.createIndex('id', { config: lancedb.Index.btree() })],
      [
        'Update',
        () =>
          base
            .mergeInsert('id')
            .whenMatchedUpdateAll()
            .execute([{ id: 3n, v: 'cc', e: [2, 2] }]),
      ],
      ['Delete', () => base.delete('id IN (1)')],
      ['optimize', () => base.optimize()],
      ['Merge', () => base.addColumns([{ name: 'x', valueSql: 'cast(null as int)' }])],
      [
        'Restore',
        async () => {
          await base.checkout(2);
          await base.restore();
        },
      ],
    ];
    const seen: Array<[string, string[]]> = [];
    for (const [name, make] of made) {
      const before = await base.version();
      await make();
      const commits = await commitsBetween(dir.fsStore(), 't', before, await base.version());
      seen.push([name, commits.map((c) => `${c.operation}:${c.effect}`)]);
    }
    expect(seen).toEqual([
      ['Append', ['Append:rows']],
      ['CreateIndex', ['CreateIndex:layout']],
      ['Update', ['Update:rows']],
      ['Delete', ['Delete:rows']],
      ['optimize', ['ReserveFragments:layout', 'Rewrite:layout', 'CreateIndex:layout']],
      ['Merge', ['Merge:schema']],
      ['Restore', ['Restore:rows']],
    ]);
  });

  it('the very first version is an Overwrite, which may change rows', async () => {
    const db = await lancedb.connect(`${dir.path}/tables/t`);
    await db.createTable('base', [{ id: 1n }]);
    expect(await commitsBetween(dir.fsStore(), 't', 0, 1)).toEqual([
      { version: 1, operation: 'Overwrite', effect: 'rows' },
    ]);
  });
});

/**
 * Imports point down (docs/design.md, "Layers and rooms"). The store, Redis and Arrow
 * layers sit below the LSM, the WAL and the read path: they may be imported by those,
 * never the reverse, so a rule the lower layers need (the poison record, for one) moves
 * down rather than pulling an import up. shared/ knows nothing above it; the queue adapter,
 * the observability room and the composition root know no entry point; and the two entry
 * rooms, functions/ and jobs/, never import each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(new URL(`${dir}/`, ROOT), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${dir}/${file}`);
}

function importing(dirs: readonly string[], forbidden: RegExp): string[] {
  return dirs.flatMap(sources).filter((file) => forbidden.test(readFileSync(new URL(file, ROOT), 'utf8')));
}

describe('lower layers', () => {
  it('shared/store, shared/redis and shared/arrow import nothing from lsm, wal or read', () => {
    const lower = ['shared/store', 'shared/redis', 'shared/arrow'];
    expect(importing(lower, /from '(\.\.\/)+(lsm|wal|read)\//)).toEqual([]);
  });

  it('the ground floor (store, redis, arrow, table) imports only itself and the shared modules below every room', () => {
    const ground = ['shared/store', 'shared/redis', 'shared/arrow', 'shared/table'];
    const allowed =
      /^\.\.\/(store|redis|arrow|table)\/|^\.\.\/(config|errors|shard-poison|plain-object|page-limit)\.ts$/;
    const outside = ground.flatMap(sources).flatMap((file) =>
      [...readFileSync(new URL(file, ROOT), 'utf8').matchAll(/from '(\.\.\/[^']*)'/g)]
        .map((m) => m[1]!)
        .filter((target) => !allowed.test(target))
        .map((target) => `${file} -> ${target}`),
    );
    expect(outside).toEqual([]);
  });

  it('shared/read imports nothing from search, which builds on it', () => {
    expect(importing(['shared/read'], /from '(\.\.\/)+search\//)).toEqual([]);
  });

  it('shared/wal imports nothing from lsm, which builds on it', () => {
    expect(importing(['shared/wal'], /from '(\.\.\/)+lsm\//)).toEqual([]);
  });

  it('shared/ imports nothing from the queue adapter, observability, the composition root or an entry room', () => {
    expect(importing(['shared'], /from '(\.\.\/)+(queue|observability|runtime|functions|jobs)\//)).toEqual(
      [],
    );
  });

  it('queue/, observability/ and runtime/ import no entry room', () => {
    const middle = ['queue', 'observability', 'runtime'];
    expect(importing(middle, /from '(\.\.\/)+(functions|jobs)\//)).toEqual([]);
  });

  it('functions/ and jobs/ do not import each other', () => {
    expect(importing(['functions'], /from '(\.\.\/)+jobs\//)).toEqual([]);
    expect(importing(['jobs'], /from '(\.\.\/)+functions\//)).toEqual([]);
  });
});

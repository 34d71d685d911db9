/**
 * The store, Redis and Arrow layers sit below the LSM, the WAL and the read path: they may
 * be imported by those, never the reverse, so a rule the lower layers need (the poison
 * record, for one) moves down rather than pulling an import up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SHARED = new URL('../../shared/', import.meta.url);
const LOWER = ['store', 'redis', 'arrow'];
const HIGHER = /from '\.\.\/(lsm|wal|read)\//;

describe('lower layers', () => {
  it('shared/store, shared/redis and shared/arrow import nothing from lsm, wal or read', () => {
    const offenders = LOWER.flatMap((layer) =>
      readdirSync(new URL(`${layer}/`, SHARED), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .filter((file) => HIGHER.test(readFileSync(new URL(`${layer}/${file}`, SHARED), 'utf8')))
        .map((file) => `${layer}/${file}`),
    );
    expect(offenders).toEqual([]);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.ts';
import { FsStore } from '../../../shared/store/fs-store.ts';
import { openStore, parseStoreUrl } from '../../../shared/store/open-store.ts';
import { S3Store } from '../../../shared/store/s3-store.ts';

describe('store URL', () => {
  it.each([
    ['file:///var/lib/sluice', { kind: 'file', root: '/var/lib/sluice' }],
    ['file:///var/lib/with%20space', { kind: 'file', root: '/var/lib/with space' }],
    ['file://./.sluice', { kind: 'file', root: '/srv/app/.sluice' }],
    ['file://../data', { kind: 'file', root: '/srv/data' }],
    ['s3://bucket', { kind: 's3', bucket: 'bucket', prefix: '' }],
    ['s3://my-bucket/', { kind: 's3', bucket: 'my-bucket', prefix: '' }],
    ['s3://my.bucket/env/prod', { kind: 's3', bucket: 'my.bucket', prefix: 'env/prod/' }],
    ['s3://my-bucket/env/prod/', { kind: 's3', bucket: 'my-bucket', prefix: 'env/prod/' }],
  ])('reads %s', (url, location) => {
    expect(parseStoreUrl(url, '/srv/app')).toEqual(location);
  });

  it.each([
    ['another scheme', 'http://example.com/x'],
    ['a bare path', '/var/lib/sluice'],
    ['a file URL with a host', 'file://host/dir'],
    ['an S3 URL without a bucket', 's3://'],
    ['an invalid bucket name', 's3://Bad_Bucket/x'],
    ['an S3 prefix with an empty segment', 's3://bucket/a//b'],
    ['an S3 prefix that climbs', 's3://bucket/../x'],
  ])('refuses %s with INVALID_CONFIG', (_, url) => {
    expect(() => parseStoreUrl(url)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
  });
});

describe('openStore', () => {
  it('opens a file store for a file:// URL, creating its directory', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'sluice-open-'));
    try {
      const store = openStore(loadConfig({}, { storeUrl: `file://${parent}/nested/store` }));
      expect(store).toBeInstanceOf(FsStore);
      expect(store.url).toBe(`file://${parent}/nested/store`);
      await store.put('k', new Uint8Array([1]));
      await store.close();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('opens an S3 store for an s3:// URL, with the key prefix in its URL', async () => {
    const store = openStore(
      loadConfig(
        {},
        { storeUrl: 's3://bucket/env', s3: { endpoint: 'http://127.0.0.1:1', forcePathStyle: true } },
      ),
    );
    expect(store).toBeInstanceOf(S3Store);
    expect(store.url).toBe('s3://bucket/env/');
    await store.close();
  });

  it('refuses an S3 access key id without its secret (INVALID_CONFIG)', () => {
    const config = loadConfig({}, { storeUrl: 's3://bucket', s3: { accessKeyId: 'id' } });
    expect(() => openStore(config)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
  });
});

import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ensureRedis,
  freePort,
  privateRedisAllowed,
  redisAnswers,
  startPrivateRedis,
} from '../../infra/local/redis.ts';
import { isSluiceError } from '../../shared/errors.ts';
import { silentLogger } from '../../shared/log.ts';
import { testRedisUrl } from '../support/redis.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback URL where nothing listens. */
async function unusedRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

async function command(url: string, ...args: string[]): Promise<unknown> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await client.call(args[0]!, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

describe('ensureRedis', () => {
  it('uses the Redis that answers at the URL and leaves it running on stop()', async () => {
    const redis = await ensureRedis(testRedisUrl, silentLogger);
    expect(redis).toMatchObject({ url: testRedisUrl, owned: false });
    await redis.stop();
    expect(await redisAnswers(testRedisUrl)).toBe(true);
  });

  it('starts a private redis-server when nothing answers, and stop() really stops it', async () => {
    const unused = await unusedRedisUrl();
    const redis = await ensureRedis(unused, silentLogger, { startPrivate: true });
    cleanups.push(() => redis.stop());

    expect(redis.owned).toBe(true);
    expect(redis.url).not.toBe(unused);
    expect(await command(redis.url, 'PING')).toBe('PONG');
    expect(await command(redis.url, 'CONFIG', 'GET', 'maxmemory-policy')).toEqual([
      'maxmemory-policy',
      'noeviction',
    ]);

    await redis.stop();
    expect(await redisAnswers(redis.url)).toBe(false);
  });

  it('reports a Redis that answers with an error (NOAUTH) instead of starting another', async () => {
    const guarded = await startPrivateRedis();
    cleanups.push(() => guarded.stop());
    await command(guarded.url, 'CONFIG', 'SET', 'requirepass', 'secret');

    await expect(ensureRedis(guarded.url, silentLogger)).rejects.toThrow(/refused: NOAUTH/);
  });

  it('fails with one line naming what to install when nothing answers and redis-server is missing', async () => {
    const unused = await unusedRedisUrl();
    vi.stubEnv('PATH', '/nonexistent');
    const failure = await ensureRedis(unused, silentLogger, { startPrivate: true }).catch(
      (err: unknown) => err,
    );

    expect(isSluiceError(failure, 'REDIS_UNAVAILABLE')).toBe(true);
    const message = (failure as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(unused);
    expect(message).toContain('apt-get install redis-server');
    expect(message).toContain('SLUICE_REDIS_URL');
  });
});

describe('ensureRedis with SLUICE_REDIS_URL set', () => {
  it('stops with one line naming the URL when nothing answers there, and starts no private Redis', async () => {
    const unused = await unusedRedisUrl();
    vi.stubEnv('SLUICE_REDIS_URL', unused);
    const failure = await ensureRedis(unused, silentLogger).catch((err: unknown) => err);

    expect(isSluiceError(failure, 'REDIS_UNAVAILABLE')).toBe(true);
    const message = (failure as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(`SLUICE_REDIS_URL=${unused}`);
    expect(await redisAnswers(unused)).toBe(false);
  });

  it('allows a private Redis only while the variable is unset or empty', () => {
    expect(privateRedisAllowed({})).toBe(true);
    expect(privateRedisAllowed({ SLUICE_REDIS_URL: '' })).toBe(true);
    expect(privateRedisAllowed({ SLUICE_REDIS_URL: 'redis://127.0.0.1:6390' })).toBe(false);
  });
});

describe('startPrivateRedis', () => {
  it('restarts empty on the same port', async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    await command(redis.url, 'SET', 'survivor', 'yes');

    await redis.restart();

    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await command(redis.url, 'DBSIZE')).toBe(0);
    expect(await command(redis.url, 'GET', 'survivor')).toBeNull();
  });

  it('listens on the port it is given and removes its directory on stop()', async () => {
    const port = await freePort();
    const redis = await startPrivateRedis({ port });
    cleanups.push(() => redis.stop());
    expect(redis.port).toBe(port);
    expect(existsSync(redis.dir)).toBe(true);

    await redis.stop();

    expect(existsSync(redis.dir)).toBe(false);
    expect(await redisAnswers(redis.url)).toBe(false);
  });

  it('refuses a port where another Redis already answers', async () => {
    const first = await startPrivateRedis();
    cleanups.push(() => first.stop());

    await expect(startPrivateRedis({ port: first.port })).rejects.toThrow(
      /another Redis already answers|Address already in use/,
    );
    expect(await command(first.url, 'PING')).toBe('PONG');
  });
});

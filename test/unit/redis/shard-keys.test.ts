/**
 * Redis Cluster safety: a Lua script or MULTI may only touch keys of one slot. Every key of
 * one BullMQ queue carries the queue's name as its hash tag, and every key of one shard
 * carries `{table/shard}`, and every key of a table's WAL lane `{table/wal}`.
 */
import { QueueKeys } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { QUEUE, queueOptions, queuePrefix } from '../../../queue/queues.ts';
import { loadConfig } from '../../../shared/config.ts';
import { laneKeys } from '../../../shared/redis/lane-keys.ts';
import { shardKeys } from '../../../shared/redis/shard-keys.ts';
import { hashTag } from '../../support/hash-tag.ts';

describe('Redis Cluster hash tags', () => {
  const config = loadConfig({}, { redisPrefix: 'sluice' });

  it('reads a hash tag the way Redis Cluster does', () => {
    expect(hashTag('sluice:{flush}:flush:wait')).toBe('flush');
    expect(hashTag('a{}b{c}')).toBe('a{}b{c}');
    expect(hashTag('plain')).toBe('plain');
  });

  it('every key of a queue, jobs and deduplication included, shares the queue name as one hash tag', () => {
    for (const name of Object.values(QUEUE)) {
      const { prefix } = queueOptions(config, name);
      const keys = new QueueKeys(prefix);
      const all = [
        ...Object.values(keys.getKeys(name)),
        keys.toKey(name, 'some-job-id'),
        `${keys.toKey(name, 'de')}:seal/orders/3`,
        `${keys.toKey(name, 'repeat')}:sampler-tick`,
      ];
      expect(new Set(all.map(hashTag))).toEqual(new Set([name]));
    }
    expect(new QueueKeys(queuePrefix(config, QUEUE.flush)).toKey(QUEUE.flush, 'wait')).toBe(
      'sluice:{flush}:flush:wait',
    );
  });

  it('every key of one shard shares {table/shard}, and shards differ', () => {
    const keys = Object.values(shardKeys('sluice', 'orders', 3));
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['orders/3']));
    expect(hashTag(shardKeys('sluice', 'orders', 4).seq)).toBe('orders/4');
  });

  it('every key of a table lane shares {table/wal}, apart from every shard lane of the table', () => {
    const keys = Object.values(laneKeys('sluice', 'orders'));
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['orders/wal']));
    expect(new Set(keys).size).toBe(keys.length);
    expect(hashTag(shardKeys('sluice', 'orders', 0).seq)).not.toBe('orders/wal');
  });
});

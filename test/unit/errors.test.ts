/**
 * A Redis node or cluster slot out of reach is a 503 REDIS_UNAVAILABLE that a client
 * retries, not a 500: what ioredis throws during a failover, by its message.
 */
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { toSluiceError } from '../../shared/errors.ts';

describe('Redis outages as errors', () => {
  it.each([
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'LOADING Redis is loading the dataset in memory',
    "READONLY You can't write against a read only replica.",
    'Too many Cluster redirections. Last error: Error: Connection is closed.',
    'Connection is closed.',
    'Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.',
  ])('%s → 503 REDIS_UNAVAILABLE', (message) => {
    const error = toSluiceError(new ReplyError(message));
    expect(error.code).toBe('REDIS_UNAVAILABLE');
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
  });

  it('anything else unexpected stays INTERNAL, and a script error is no outage', () => {
    expect(toSluiceError(new Error('boom')).code).toBe('INTERNAL');
    expect(toSluiceError(new ReplyError("CROSSSLOT Keys in request don't hash to the same slot")).code).toBe(
      'INTERNAL',
    );
  });
});

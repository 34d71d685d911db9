/**
 * An operator's "optimize now", held until the table's merge lane runs it. The request is a
 * counter in Redis (`{prefix}:{optimize/{t}}`): asking adds one; a lane job reads it before
 * its optimize and takes off what it read once the optimize is done, so a request that
 * arrives while one runs survives for the next job. Lost with Redis, a request is only
 * asked again; the scheduler's own triggers live in the store.
 */
import type { RedisClient } from '../redis/connection.ts';

export class OptimizeRequests {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async add(table: string): Promise<void> {
    await this.redis.incr(this.key(table));
  }

  /** How many requests are waiting; the lane hands the number back to `done` after it optimized. */
  async waiting(table: string): Promise<number> {
    return Math.max(0, Number((await this.redis.get(this.key(table))) ?? 0));
  }

  async done(table: string, served: number): Promise<void> {
    if (served <= 0) return;
    if ((await this.redis.decrby(this.key(table), served)) <= 0) await this.redis.del(this.key(table));
  }

  private key(table: string): string {
    return `${this.prefix}:{optimize/${table}}`;
  }
}

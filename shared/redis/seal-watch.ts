/**
 * Shards that must be looked at for lost seal work: a WAL entry durable in the store whose
 * seal was never asked for, because its writer died between the put and the request, or the
 * put's answer was lost. One sorted set, member `{shard}/{table}`, score the time (ms) the
 * shard is due: a writer pushes that time on before its put, and the sampler takes what is
 * due, so a tick costs the shards that went quiet, never a look at every shard.
 */
import type { RedisClient } from './connection.ts';
import { luaCommand, runLuaCommand } from './lua-commands.ts';

export const TAKE_DUE_WATCHES = luaCommand<'watch', string[]>('take-due-watches-1.lua', ['watch']);

export class SealWatch {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = `${prefix}:{sampler}:seal-watch`;
  }

  /** Due at `dueAt` or later: a later writer's due time never moves the mark earlier (GT). */
  async watch(table: string, shard: number, dueAt: number): Promise<void> {
    await this.redis.zadd(this.key, 'GT', dueAt, `${shard}/${table}`);
  }

  async takeDue(now: number): Promise<Array<{ table: string; shard: number }>> {
    const members = await runLuaCommand(this.redis, TAKE_DUE_WATCHES, { watch: this.key }, [now]);
    return members.map((member) => {
      const slash = member.indexOf('/');
      return { shard: Number(member.slice(0, slash)), table: member.slice(slash + 1) };
    });
  }
}

/**
 * Drain (docs/design.md, "Drain"): a drained table starts no new merge or compaction — the one
 * running finishes, and writes and flushes go on. Operators drain a table before
 * maintenance or while they look at a failing one.
 *
 * The flag lives in the object store (`tables/{t}/drain.json`, the truth) and in Redis
 * (`{prefix}:{drain/{t}}`, "1" or "0", the fast path). Redis answers unless it has no
 * value — never set, or lost with Redis — and then the store does, and its answer is
 * cached with SET NX. A change deletes the Redis value first, writes the store, then sets
 * Redis: whichever step fails, Redis holds either nothing (the store answers) or the value
 * the store holds, so a drain survives a Redis loss and never reads as its opposite. A
 * cache fill racing a change cannot undo it: the change's final SET is unconditional, the
 * fill's is NX.
 */
import type { RedisClient } from '../redis/connection.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableDrainKey } from '../table/paths.ts';
import type { TableDef } from '../table/table-def.ts';

export interface DrainFlagsDeps {
  redis: RedisClient;
  prefix: string;
  store: ObjectStore;
}

export interface DrainState {
  table: string;
  drain: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class DrainFlags {
  constructor(private readonly deps: DrainFlagsDeps) {}

  /** Takes a table definition, not a name: only an existing table can be drained. */
  async setDrain(table: TableDef, drain: boolean, signal?: AbortSignal): Promise<DrainState> {
    const key = this.redisKey(table.name);
    await this.deps.redis.del(key);
    const body = encoder.encode(JSON.stringify({ drain, at: new Date().toISOString() }));
    await this.deps.store.put(tableDrainKey(table.name), body, { signal });
    await this.deps.redis.set(key, drain ? '1' : '0');
    return { table: table.name, drain };
  }

  async isDrained(table: string, signal?: AbortSignal): Promise<boolean> {
    const key = this.redisKey(table);
    const cached = await this.deps.redis.get(key);
    if (cached !== null) return cached === '1';
    const object = await this.deps.store.get(tableDrainKey(table), { signal });
    const drain = object !== null && parseDrain(decoder.decode(object.body));
    await this.deps.redis.set(key, drain ? '1' : '0', 'NX');
    return drain;
  }

  /** Forgets a purged table's cached flag, so a new table of the same name starts undrained. */
  async forget(table: string): Promise<void> {
    await this.deps.redis.del(this.redisKey(table));
  }

  private redisKey(table: string): string {
    return `${this.deps.prefix}:{drain/${table}}`;
  }
}

/** Only an explicit `"drain": true` drains: a damaged flag must not stop a table's merges unseen. */
function parseDrain(text: string): boolean {
  try {
    return (JSON.parse(text) as { drain?: unknown }).drain === true;
  } catch {
    return false;
  }
}

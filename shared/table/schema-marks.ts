/**
 * The schema mark of a table: the newest schema version Redis has been told of
 * (`{prefix}:{drop/{t}}:schema`, beside the drop flag in its hash tag). A change of the
 * columns raises it before it answers, so a write that begins after that answer finds it, and
 * a process holding an older definition whose values a change could widen unrefused reads it
 * before parsing a write (docs/design.md, "Schema evolution"). It is only ever raised: a
 * process filling it from an older read of the store cannot hide a newer change. Redis may
 * lose it; a write that finds none fills it from the store, and the sampler's sweep raises
 * it again for every table.
 */
import type { RedisClient } from '../redis/connection.ts';
import { luaCommand, runLuaCommand } from '../redis/lua-commands.ts';

export const RAISE_SCHEMA_MARK = luaCommand<'mark', null>('raise-schema-mark-1.lua', ['mark']);

export function schemaMarkKey(prefix: string, table: string): string {
  return `${prefix}:{drop/${table}}:schema`;
}

export class SchemaMarks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** The schema version marked for `table`; null when Redis has no mark (never raised, or lost). */
  async read(table: string): Promise<number | null> {
    const mark = await this.redis.get(schemaMarkKey(this.prefix, table));
    return mark === null ? null : Number(mark);
  }

  /** Raises the mark of `table` to `version` unless it is there already. */
  async raise(table: string, version: number): Promise<void> {
    await runLuaCommand(this.redis, RAISE_SCHEMA_MARK, { mark: schemaMarkKey(this.prefix, table) }, [
      version,
    ]);
  }
}

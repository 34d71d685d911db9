/**
 * The Lua commands of one shard's coordination state. Each takes every shard key, in
 * `SHARD_KEY_ORDER`, so its header and the include helpers agree on what KEYS[n] means.
 */
import { type LuaCommand, luaCommand } from './lua-commands.ts';
import { SHARD_KEY_ORDER, type ShardKeyName } from './shard-keys.ts';

type ShardCommand<R> = LuaCommand<ShardKeyName, R>;

export const ALLOCATE: ShardCommand<[string, ...string[]]> = luaCommand('allocate-10.lua', SHARD_KEY_ORDER);
export const COMPLETE: ShardCommand<[string, string]> = luaCommand('complete-10.lua', SHARD_KEY_ORDER);
export const SYNC: ShardCommand<number> = luaCommand('sync-10.lua', SHARD_KEY_ORDER);
export const CACHE_POISON: ShardCommand<number> = luaCommand('cache-poison-10.lua', SHARD_KEY_ORDER);
export const SYNC_POISON: ShardCommand<number> = luaCommand('sync-poison-10.lua', SHARD_KEY_ORDER);
export const END_SEAL: ShardCommand<[number, string]> = luaCommand('end-seal-10.lua', SHARD_KEY_ORDER);
export const RECORD_SEAL: ShardCommand<number> = luaCommand('record-seal-10.lua', SHARD_KEY_ORDER);
export const RECORD_SEALED_COUNT: ShardCommand<number> = luaCommand(
  'record-sealed-count-10.lua',
  SHARD_KEY_ORDER,
);

export const SHARD_COMMANDS: readonly ShardCommand<unknown>[] = [
  ALLOCATE,
  COMPLETE,
  END_SEAL,
  SYNC,
  CACHE_POISON,
  SYNC_POISON,
  RECORD_SEAL,
  RECORD_SEALED_COUNT,
];

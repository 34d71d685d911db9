/**
 * The Lua commands of a table WAL lane's coordination state (docs/table-wal-lane.md, §6).
 * Each takes every lane key, in `LANE_KEY_ORDER`, so its header and the include helpers
 * agree on what KEYS[n] means.
 */
import { LANE_KEY_ORDER, type LaneKeyName } from './lane-keys.ts';
import { type LuaCommand, luaCommand } from './lua-commands.ts';

type LaneCommand<R> = LuaCommand<LaneKeyName, R>;

/** Shards as strings, then shard/bytes pairs (see the script headers). */
type Bookkeeping = [armed: string[], unsealed: string[]];

export const LANE_ALLOCATE: LaneCommand<[...Bookkeeping, string, ...unknown[]]> = luaCommand(
  'lane-allocate-11.lua',
  LANE_KEY_ORDER,
);
export const LANE_COMPLETE: LaneCommand<Bookkeeping> = luaCommand('lane-complete-11.lua', LANE_KEY_ORDER);
export const LANE_END_SEAL: LaneCommand<[number, string]> = luaCommand(
  'lane-end-seal-11.lua',
  LANE_KEY_ORDER,
);
export const LANE_RECORD_SEAL: LaneCommand<number> = luaCommand('lane-record-seal-11.lua', LANE_KEY_ORDER);
export const LANE_RECORD_SEALED_COUNT: LaneCommand<number> = luaCommand(
  'lane-record-sealed-count-11.lua',
  LANE_KEY_ORDER,
);
export const LANE_SYNC: LaneCommand<number> = luaCommand('lane-sync-11.lua', LANE_KEY_ORDER);
export const LANE_CACHE_POISON: LaneCommand<number> = luaCommand('lane-cache-poison-11.lua', LANE_KEY_ORDER);

export const LANE_COMMANDS: readonly LaneCommand<unknown>[] = [
  LANE_ALLOCATE,
  LANE_COMPLETE,
  LANE_END_SEAL,
  LANE_SYNC,
  LANE_CACHE_POISON,
  LANE_RECORD_SEAL,
  LANE_RECORD_SEALED_COUNT,
];

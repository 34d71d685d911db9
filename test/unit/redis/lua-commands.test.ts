/**
 * The Lua commands against their headers: what a header says KEYS[n] is must be what the
 * caller passes at n, every KEYS[n] and ARGV[n] a script reads must be stated in the header
 * above it, and the key count in a file's name must be what the command is defined with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_NOTE, IDEMPOTENCY_SETTLE } from '../../../shared/idempotency.ts';
import { LANE_COMMANDS } from '../../../shared/redis/lane-commands.ts';
import { LANE_KEY_ORDER, laneKeyList, laneKeys } from '../../../shared/redis/lane-keys.ts';
import { type LuaCommand, luaSource } from '../../../shared/redis/lua-commands.ts';
import { TAKE_DUE_WATCHES } from '../../../shared/redis/seal-watch.ts';
import { SHARD_COMMANDS } from '../../../shared/redis/shard-commands.ts';
import { SHARD_KEY_ORDER, shardKeyList, shardKeys } from '../../../shared/redis/shard-keys.ts';
import { LEDGER_SWAP } from '../../../shared/scheduler/failure-ledger.ts';
import { RAISE_SCHEMA_MARK } from '../../../shared/table/schema-marks.ts';

const COMMANDS: readonly LuaCommand<string, unknown>[] = [
  ...SHARD_COMMANDS,
  ...LANE_COMMANDS,
  LEDGER_SWAP,
  IDEMPOTENCY_SETTLE,
  IDEMPOTENCY_NOTE,
  TAKE_DUE_WATCHES,
  RAISE_SCHEMA_MARK,
];
const COMMANDS_DIR = new URL('../../../shared/redis/commands/', import.meta.url);

/** A .lua file as written: what its header states, its code, and the files it includes. */
interface LuaFile {
  keys: Map<number, string>;
  argv: { from: number; open: boolean }[];
  code: string;
  includes: string[];
}

function readLua(file: string): LuaFile {
  const text = readFileSync(new URL(file, COMMANDS_DIR), 'utf8');
  const end = text.indexOf(']]');
  expect([file, text.startsWith('--[[') && end > 0]).toEqual([file, true]);
  const header = text.slice(0, end);
  const keys = new Map<number, string>();
  for (const m of header.matchAll(/^\s*KEYS\[(\d+)\]\s+(\w+)/gm)) keys.set(Number(m[1]), m[2]!);
  const argv = [...header.matchAll(/^\s*ARGV\[(\d+)(\.\.)?\]/gm)].map((m) => ({
    from: Number(m[1]),
    open: m[2] !== undefined,
  }));
  const includes = [...text.matchAll(/^--- @include "([^"]+)"$/gm)].map((m) => `${m[1]}.lua`);
  return { keys, argv, code: text.slice(end + 2), includes };
}

/** The command's own file first, then every file it includes, directly or not. */
function sections(file: string): LuaFile[] {
  const own = readLua(file);
  return [own, ...own.includes.flatMap(sections)];
}

function used(code: string, array: 'KEYS' | 'ARGV'): number[] {
  return [...code.matchAll(new RegExp(`${array}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1]));
}

describe('Lua commands', () => {
  it('name their key count in the file name and take that many keys', () => {
    for (const command of COMMANDS) {
      expect(command.file, command.file).toMatch(new RegExp(`-${command.keys.length}\\.lua$`));
    }
  });

  it('state in each header what the caller passes as every KEYS[n]', () => {
    for (const command of COMMANDS) {
      for (const section of sections(command.file)) {
        for (const [n, name] of section.keys)
          expect(`${command.file} KEYS[${n}] ${name}`).toBe(
            `${command.file} KEYS[${n}] ${command.keys[n - 1]}`,
          );
      }
    }
  });

  it('read only the KEYS and ARGV the header above the code states', () => {
    for (const command of COMMANDS) {
      for (const section of sections(command.file)) {
        for (const n of used(section.code, 'KEYS'))
          expect([command.file, n, section.keys.has(n)]).toEqual([command.file, n, true]);
        for (const n of used(section.code, 'ARGV')) {
          const stated = section.argv.some((a) => a.from === n || (a.open && n >= a.from));
          expect([command.file, `ARGV[${n}]`, stated]).toEqual([command.file, `ARGV[${n}]`, true]);
        }
      }
    }
  });

  it('list in the command header every key its included helpers touch', () => {
    for (const command of COMMANDS) {
      const [own, ...included] = sections(command.file);
      const touched = new Set([...used(own!.code, 'KEYS'), ...included.flatMap((s) => [...s.keys.keys()])]);
      expect([command.file, [...touched].filter((n) => !own!.keys.has(n))]).toEqual([command.file, []]);
    }
  });

  it('put each include in place once and leave no include line behind', () => {
    const source = luaSource('allocate-10.lua');
    expect(source).not.toContain('@include');
    expect(source.match(/local function applyCompletions/g)).toHaveLength(1);
    expect(source.match(/local function armSeal/g)).toHaveLength(1);
    const lane = luaSource('lane-allocate-11.lua');
    expect(lane).not.toContain('@include');
    expect(lane.match(/local function laneSections/g)).toHaveLength(1);
    expect(lane.match(/local function armLaneSeal/g)).toHaveLength(1);
  });

  it('are all defined: no .lua file in shared/redis/commands is left without a command', () => {
    const files = readdirSync(COMMANDS_DIR).filter((f) => f.endsWith('.lua'));
    expect(files.sort()).toEqual(COMMANDS.map((c) => c.file).sort());
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  it('take the shard keys in SHARD_KEY_ORDER, which names every shard key once', () => {
    const keys = shardKeys('sluice', 'orders', 3);
    expect([...SHARD_KEY_ORDER].sort()).toEqual(Object.keys(keys).sort());
    expect(shardKeyList(keys)).toEqual(SHARD_KEY_ORDER.map((name) => keys[name]));
  });

  it('take the lane keys in LANE_KEY_ORDER, which names every lane key once', () => {
    const keys = laneKeys('sluice', 'orders');
    expect([...LANE_KEY_ORDER].sort()).toEqual(Object.keys(keys).sort());
    expect(laneKeyList(keys)).toEqual(LANE_KEY_ORDER.map((name) => keys[name]));
    for (const command of LANE_COMMANDS)
      expect([command.file, command.keys]).toEqual([command.file, LANE_KEY_ORDER]);
  });

  it('are the only Lua: no .ts file of shared/, queue/, runtime/, observability/, jobs/ or functions/ calls redis.call', () => {
    const roots = ['shared', 'queue', 'runtime', 'observability', 'jobs', 'functions'];
    const offenders = roots.flatMap((root) =>
      readdirSync(new URL(`../../../${root}/`, import.meta.url), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .filter((f) =>
          readFileSync(new URL(`../../../${root}/${f}`, import.meta.url), 'utf8').includes('redis.call('),
        ),
    );
    expect(offenders).toEqual([]);
  });
});

/**
 * The one gate to Sluice's Lua: every script is a file of shared/redis/commands, named
 * `{what it does}-{key count}.lua`, whose header states its KEYS, ARGV and answer. A line
 * `--- @include "includes/{name}"` stands for that file's source (once per script, however
 * often it is named), so a helper several commands share has one home. A script is read
 * from disk once per process and defined on a connection the first time it runs there.
 */
import { readFileSync } from 'node:fs';
import type { RedisClient } from './connection.ts';

/**
 * Next to this module when it runs from source (tsx); next to the bundle when esbuild has
 * inlined it, which is why the Lambda bundling copies this folder beside its output.
 */
const COMMANDS_DIR = new URL('./commands/', import.meta.url);

const INCLUDE = /^--- @include "([^"]+)"$/gm;

/** A Lua command: its file and the names of its KEYS in KEYS[1..n] order; `R` is its answer. */
export interface LuaCommand<K extends string, R> {
  /** The method ioredis defines for it: `sluice` and the file name in camel case, without the key count. */
  readonly name: string;
  readonly file: string;
  readonly keys: readonly K[];
  /** Carries the answer's type to `runLuaCommand`; never set. */
  readonly answer?: R;
}

export function luaCommand<K extends string, R>(file: string, keys: readonly K[]): LuaCommand<K, R> {
  const words = file.replace(/-\d+\.lua$/, '').split('-');
  const name = `sluice${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}`;
  return { name, file, keys };
}

const sources = new Map<string, string>();

/** The script of `file` with its includes in place. */
export function luaSource(file: string): string {
  let source = sources.get(file);
  if (source === undefined) {
    source = expand(file, new Set());
    sources.set(file, source);
  }
  return source;
}

function expand(file: string, included: Set<string>): string {
  const text = readFileSync(new URL(file, COMMANDS_DIR), 'utf8');
  return text.replace(INCLUDE, (_line, name: string) => {
    const path = `${name}.lua`;
    if (included.has(path)) return '';
    included.add(path);
    return expand(path, included).trimEnd();
  });
}

type Method<R> = (...args: (string | number)[]) => Promise<R>;

/** Runs `command` with the keys it names taken from `keys`, then `args` as its ARGV. */
export async function runLuaCommand<K extends string, R>(
  redis: RedisClient,
  command: LuaCommand<K, R>,
  keys: Readonly<Record<K, string>>,
  args: readonly (string | number)[],
): Promise<R> {
  const methods = redis as unknown as Record<string, Method<R> | undefined>;
  if (methods[command.name] === undefined) {
    redis.defineCommand(command.name, { numberOfKeys: command.keys.length, lua: luaSource(command.file) });
  }
  return methods[command.name]!.call(redis, ...command.keys.map((key) => keys[key]), ...args);
}

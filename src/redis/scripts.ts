// Every Redis script is a .lua file beside the module that runs it, named
// after BullMQ's src/commands/: `<module>.<what>-<keys>.lua`, where <keys> is
// how many KEYS it takes (`-n`: as many as the caller passes, e.g. one per
// egress route). The file is read once, when its module loads, and registered
// on each client that runs it with ioredis's defineCommand, the first time that
// client does: ioredis then sends EVALSHA (the script text only after a
// NOSCRIPT, e.g. a restarted or failed-over Redis), on one server or on a
// cluster, where it goes to the shard of its keys. A script's keys must share
// one hash tag (keys.ts): a cluster refuses a script whose keys span slots.
//
// The key count is read from the file name, so no call site counts keys by
// hand, and the compiler checks each call passes that many.
// `npm run build` copies the files next to the compiled modules
// (scripts/copy-lua.mjs). test/unit/redis-scripts.test.ts fails on Lua written
// inline in a TypeScript file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainableCommander } from 'ioredis';
import type { Redis } from './connection.js';

/** What an ARGV entry may be: Redis receives every argument as a string. */
export type ScriptArg = string | number;

/** The key count a script file's name declares: `x-3.lua` → 3, `x-n.lua` → 'n'. */
export type KeyCountOf<F extends string> = F extends `${string}-${infer Rest}`
  ? Rest extends 'n.lua'
    ? 'n'
    : Rest extends `${infer N extends number}.lua`
      ? N
      : KeyCountOf<Rest>
  : never;

type Tuple<N extends number, T, Acc extends T[] = []> = Acc['length'] extends N ? Acc : Tuple<N, T, [...Acc, T]>;
/** The keys a script takes: exactly N strings, or any number for `-n`. */
export type ScriptKeys<K extends number | 'n'> = K extends number ? Readonly<Tuple<K, string>> : readonly string[];

/** The client's commands as ioredis's defineCommand added them (ioredis types only the built-in ones). */
type DefinedCommands = Record<string, (...args: ScriptArg[]) => Promise<unknown>>;

export interface RedisScript<K extends number | 'n', A extends readonly ScriptArg[], R> {
  /** The command name it is registered under on each client. */
  readonly name: string;
  /** How many keys it takes ('n': any number). */
  readonly keyCount: K;
  /** The script's text, as read from its file. */
  readonly lua: string;
  /** Runs it on `redis` (registered on that client first, once). */
  run(redis: Redis, keys: ScriptKeys<K>, args: A): Promise<R>;
  /** Adds it to a MULTI or pipeline of `redis`; call `define(redis)` before `redis.multi()` (a pipeline copies the client's commands when it is made). */
  queue(pipeline: ChainableCommander, keys: ScriptKeys<K>, args: A): void;
  /** Registers it on `redis` (once per client; run() does it by itself). */
  define(redis: Redis): void;
  /** The same script with the types of its ARGV and answer, as its file's header describes them. */
  typed<A2 extends readonly ScriptArg[], R2>(): RedisScript<K, A2, R2>;
}

/** Every script's name → its file: two files may not claim one command name. */
const registered = new Map<string, string>();

/**
 * The script at `file` (relative to `moduleUrl`, the caller's `import.meta.url`), read now.
 * Its name must end in `-<key count>.lua` or `-n.lua`.
 */
export function redisScript<const F extends string>(moduleUrl: string, file: F): RedisScript<KeyCountOf<F>, readonly ScriptArg[], unknown> {
  const absolute = fileURLToPath(new URL(file, moduleUrl));
  const base = path.basename(absolute);
  const match = /^(.+)-(\d+|n)\.lua$/.exec(base);
  if (!match) throw new Error(`Redis script ${absolute}: its name must end in -<number of keys>.lua (or -n.lua for any number)`);
  const keyCount = (match[2] === 'n' ? 'n' : Number(match[2])) as KeyCountOf<F>;
  // One command name per script file; the module's folder keeps two `release` scripts apart.
  const name = `si:${match[1]}`;
  const claimed = registered.get(name);
  if (claimed !== undefined && claimed !== absolute)
    throw new Error(`Redis scripts ${claimed} and ${absolute} would share the command name ${name}: rename one`);
  registered.set(name, absolute);
  const lua = readFileSync(absolute, 'utf8');
  const definedOn = new WeakSet<object>();

  const define = (redis: Redis): void => {
    if (definedOn.has(redis)) return;
    redis.defineCommand(name, keyCount === 'n' ? { lua } : { numberOfKeys: keyCount, lua });
    definedOn.add(redis);
  };
  const argsOf = (keys: readonly string[], args: readonly ScriptArg[]): ScriptArg[] => {
    if (keyCount !== 'n' && keys.length !== keyCount) throw new Error(`Redis script ${base} takes ${keyCount} keys, got ${keys.length}`);
    return keyCount === 'n' ? [keys.length, ...keys, ...args] : [...keys, ...args];
  };
  const script: RedisScript<KeyCountOf<F>, readonly ScriptArg[], unknown> = {
    name,
    keyCount,
    lua,
    define,
    async run(redis, keys, args) {
      define(redis);
      return (redis as unknown as DefinedCommands)[name]!(...argsOf(keys as readonly string[], args));
    },
    queue(pipeline, keys, args) {
      const command = (pipeline as unknown as DefinedCommands)[name];
      if (command === undefined)
        throw new Error(`Redis script ${base} is not defined on this pipeline's client: call define(redis) before redis.multi()`);
      void command.call(pipeline, ...argsOf(keys as readonly string[], args));
    },
    typed: () => script as never,
  };
  return script;
}

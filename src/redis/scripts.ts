// Every Redis script is a .lua file beside the module that runs it, named
// after BullMQ's src/commands/: `<module>.<what>-<keys>.lua`, where <keys> is
// how many KEYS it takes (`-n`: as many as the caller passes, e.g. one per
// egress route). SCRIPTS below lists them all, each with the types of its ARGV
// and answer; the files are read once, when this module loads, and createRedis
// registers every one on each client it makes (ioredis's defineCommand), before
// the client sends anything. ioredis then sends EVALSHA (the script text only
// after a NOSCRIPT: a restarted or failed-over Redis), on one server or on a
// cluster, where it goes to the shard of its keys. A script's keys must share
// one hash tag (keys.ts): a cluster refuses a script whose keys span slots.
//
// Registering at birth matters: a client that auto-pipelines copies its
// commands into each pipeline it starts, and a command defined while one is
// pending is missing from it (ioredis then loses track of the pipeline's
// answers). run() still registers a script on a client made elsewhere, the
// first time that client runs it.
//
// The key count is read from the file name, so no call site counts keys by
// hand, and the compiler checks each call passes that many.
// `npm run build` copies the files next to the compiled modules
// (scripts/copy-lua.mjs). test/unit/redis-scripts.test.ts fails on Lua written
// inline in a TypeScript file, and on a .lua file SCRIPTS does not list.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainableCommander } from 'ioredis';
import type { Redis } from './client.js';

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
  /** Where its file is (absolute). */
  readonly file: string;
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
    // A client made elsewhere (not by createRedis): every script at once, so later ones do not arrive mid-pipeline.
    if (catalogued.has(name) && !catalogueDefinedOn.has(redis)) {
      defineScripts(redis);
      return;
    }
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
    file: absolute,
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

/** A script of SCRIPTS: `file` is relative to src/. */
const script = <const F extends string>(file: F) => redisScript(import.meta.url, `../${file}`);

/** Every script of the service, by the module that runs it: loaded when this module loads, defined on each client at its birth (createRedis). */
export const SCRIPTS = {
  pageLimiter: {
    take: script('members/lua/page-limiter.take-2.lua').typed<
      [sessionLimit: number, accountLimit: number, windowSeconds: number],
      number
    >(),
  },
  signIn: {
    reserve: script('members/lua/sign-in-limiter.reserve-n.lua').typed<number[], number>(),
    giveBack: script('members/lua/sign-in-limiter.give-back-1.lua').typed<[], unknown>(),
  },
  quota: {
    consume: script('accounts/lua/quota.consume-2.lua').typed<
      [limit: number, ttlSeconds: number, apiKeyId: string],
      [allowed: number, used: number]
    >(),
    count: script('accounts/lua/quota.count-2.lua').typed<[ttlSeconds: number, ...keyCounts: Array<string | number>], number>(),
    seed: script('accounts/lua/quota.seed-2.lua').typed<
      [ttlSeconds: number, total: number, ...keyCounts: Array<string | number>],
      number
    >(),
  },
  fairShare: {
    turns: script('queue/lua/fair-share.turns-2.lua').typed<ReadonlyArray<string | number>, number[]>(),
  },
  readModel: {
    read: script('redis/lua/read-model.read-2.lua').typed<[], [version: string, lsn: string]>(),
    bump: script('redis/lua/read-model.bump-2.lua').typed<[channel: string, lsn: string], string>(),
  },
  paidGateway: {
    release: script('providers/lua/paid-gateway.release-1.lua').typed<[token: string], number>(),
  },
  egressPool: {
    acquire: script('providers/google/egress/lua/egress-pool.acquire-n.lua').typed<
      [
        now: number,
        jobId: string,
        leaseMs: number,
        lookaheadMs: number,
        offset: number,
        skip: string,
        pollMs: number,
        embed: '1' | '0',
        family: string,
      ],
      [index: number, probe: number, waitMs: number, reason: string]
    >(),
    reserve: script('providers/google/egress/lua/egress-pool.reserve-3.lua').typed<
      [
        now: number,
        jobId: string,
        intervalMs: number,
        maxWaitMs: number,
        leaseMs: number,
        entry: string,
        route: string,
        embedGapMs: number,
        embed: '1' | '0',
        family: string,
        burst: number,
        firstRefillPerMinute: number,
        mostRefillPerMinute: number,
      ],
      [slot: number, waitMs: number, reason: string]
    >(),
    bucketEmpty: script('providers/google/egress/lua/egress-pool.bucket-empty-1.lua').typed<
      [now: number, firstRefillPerMinute: number, leastRefillPerMinute: number],
      [waitMs: number, refillPerMinute: string]
    >(),
    blocked: script('providers/google/egress/lua/egress-pool.blocked-2.lua').typed<
      [
        now: number,
        jobId: string,
        cooldownMs: number,
        cooldownMaxMs: number,
        jitter: number,
        askedMs: number,
        family: string,
        ...families: string[],
      ],
      [started: number, cooldownMs: number]
    >(),
    answered: script('providers/google/egress/lua/egress-pool.answered-1.lua').typed<[jobId: string, ...families: string[]], unknown>(),
    embedOverQuota: script('providers/google/egress/lua/egress-pool.embed-over-quota-1.lua').typed<
      [now: number, cooldownMs: number, cooldownMaxMs: number],
      number
    >(),
    label: script('providers/google/egress/lua/egress-pool.label-1.lua').typed<[userType: string, since: string], string | null>(),
    release: script('providers/google/egress/lua/egress-pool.release-1.lua').typed<[jobId: string, ...families: string[]], unknown>(),
    settle: script('providers/google/egress/lua/egress-pool.settle-1.lua').typed<[token: string], number>(),
  },
  deliveryGate: {
    enter: script('webhooks/lua/delivery-gate.enter-4.lua').typed<
      [now: number, job: string, leaseMs: number, perAccount: number, failures: number, subscription: string],
      [go: number, waitMs: number, why: string]
    >(),
    leave: script('webhooks/lua/delivery-gate.leave-5.lua').typed<
      [
        now: number,
        job: string,
        outcome: string,
        failures: number,
        openMs: number,
        maxOpenMs: number,
        wakeLeaseMs: number,
        carry: number,
        leaseMs: number,
        circuitPrefix: string,
      ],
      [open: number, woken: string, entered: number]
    >(),
    admit: script('webhooks/lua/delivery-gate.admit-3.lua').typed<Array<string | number>, number[]>(),
    claimWakes: script('webhooks/lua/delivery-gate.claim-wakes-1.lua').typed<Array<string | number>, string[]>(),
  },
} as const;

const catalogued = new Set<string>(Object.values(SCRIPTS).flatMap((group) => Object.values(group).map((s) => s.name)));
const catalogueDefinedOn = new WeakSet<object>();

/** Registers every script of SCRIPTS on `redis` (createRedis does, for each client it makes). */
export function defineScripts(redis: Redis): void {
  if (catalogueDefinedOn.has(redis)) return;
  catalogueDefinedOn.add(redis);
  for (const group of Object.values(SCRIPTS)) for (const each of Object.values(group)) each.define(redis);
}

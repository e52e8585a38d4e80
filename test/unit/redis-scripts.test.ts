// Every Redis script is a .lua file loaded through src/redis/scripts.ts: no
// Lua written inline in TypeScript, no script sent with a hand-counted key
// count, no script file that nothing loads, and each file's name says how many
// keys it reads.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { SCRIPTS } from '../../src/redis/scripts.js';

const SRC = path.join(PROJECT_ROOT, 'src');
const filesUnder = (dir: string, suffix: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => path.join(e.parentPath, e.name));

// What only Lua meant for Redis, or a script sent by hand, looks like.
const INLINE_LUA = [/redis\.p?call\s*\(/, /\bKEYS\[/, /\bARGV\[/, /\.eval(?:sha)?(?:_ro)?\s*\(/, /\bevalsha\b/i, /\bdefineCommand\s*\(/];

/** The lines of `text` that look like inline Lua or a hand-sent script. */
function inlineLua(text: string): string[] {
  return text.split('\n').filter((line) => INLINE_LUA.some((pattern) => pattern.test(line)));
}

describe('Redis scripts', () => {
  it('the detector finds what inline Lua and hand-sent scripts look like, and passes ordinary code', () => {
    expect(inlineLua("const S = `local n = redis.call('INCR', KEYS[1])`;")).toHaveLength(1);
    expect(inlineLua('await redis.eval(S, 1, key, 5);')).toHaveLength(1);
    expect(inlineLua("redis.defineCommand('x', { numberOfKeys: 1, lua })")).toHaveLength(1);
    expect(inlineLua('const args = process.argv[2]; evaluate(x); import { splitOf } from "./evaluation.js";')).toEqual([]);
  });

  // src/redis/transactions.ts sends no script of its own: it makes the scripts BullMQ and ours put in a MULTI go whole
  // (EVAL) instead of by SHA, which is how a transaction survives a failover to a replica with an empty script cache.
  const SCRIPT_LAYER = [path.join(SRC, 'redis', 'scripts.ts'), path.join(SRC, 'redis', 'transactions.ts')];

  it('no TypeScript file in src/ writes Lua inline or sends a script itself (only src/redis/scripts.ts registers them)', () => {
    const offenders = filesUnder(SRC, '.ts')
      .filter((file) => !SCRIPT_LAYER.includes(file))
      .flatMap((file) => inlineLua(readFileSync(file, 'utf8')).map((line) => `${path.relative(PROJECT_ROOT, file)}: ${line.trim()}`));
    expect(offenders).toEqual([]);
  });

  it('every .lua file is named for its key count, reads exactly that many keys, and is listed in SCRIPTS', () => {
    const scripts = filesUnder(SRC, '.lua');
    expect(scripts.length).toBeGreaterThan(10);
    const catalogued = new Map(Object.values(SCRIPTS).flatMap((group) => Object.values(group).map((s) => [s.file, s] as const)));
    expect(catalogued.size).toBe(scripts.length);
    for (const file of scripts) {
      const name = path.basename(file);
      const count = /-(\d+|n)\.lua$/.exec(name)?.[1];
      expect(count, `${name}: name it <module>.<what>-<number of keys>.lua`).toBeDefined();
      const lua = readFileSync(file, 'utf8').replace(/--.*$/gm, '');
      const highest = Math.max(0, ...[...lua.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
      if (count === 'n') expect(lua, `${name} takes any number of keys: it reads #KEYS`).toMatch(/#KEYS/);
      // A loop (`for i = 1, 2 do ... KEYS[i]`) reads keys no literal names: the literal ones stay within the count.
      else expect(highest, `${name} reads KEYS[${highest}]`).toBeLessThanOrEqual(Number(count));
      if (count !== '0') expect(lua).toMatch(/KEYS\[/);
      const listed = catalogued.get(file);
      expect(listed, `${path.relative(PROJECT_ROOT, file)} is not listed in SCRIPTS (src/redis/scripts.ts)`).toBeDefined();
      expect(listed!.keyCount).toBe(count === 'n' ? 'n' : Number(count));
    }
  });
});

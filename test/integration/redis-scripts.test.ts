// The script loader (src/redis/scripts.ts) on a real Redis: the key count comes
// from the file name, a script is registered once per client, a Redis that
// forgot its scripts (SCRIPT FLUSH: a restart, a failover) gets them again, and
// a script runs inside a MULTI.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedis, waitForRedis } from '../../src/redis/connection.js';
import { redisScript, SCRIPTS } from '../../src/redis/scripts.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

const ECHO = redisScript(import.meta.url, '../fixtures/lua/scripts-test.echo-2.lua').typed<string[], [number, string, ...string[]]>();
const COUNT = redisScript(import.meta.url, '../fixtures/lua/scripts-test.count-n.lua').typed<[], number>();

describe('Redis scripts from files', () => {
  let t: TestRedis;
  beforeAll(async () => {
    t = await createTestRedis();
  });
  afterAll(async () => t.destroy());

  it('reads the key count from the file name', () => {
    expect(ECHO.keyCount).toBe(2);
    expect(COUNT.keyCount).toBe('n');
    expect(() => redisScript(import.meta.url, '../fixtures/lua/no-count.lua')).toThrow(/-<number of keys>\.lua/);
  });

  it('passes the keys and arguments in place, registering the script on a client once', async () => {
    const define = vi.spyOn(t.redis, 'defineCommand');
    const key = (n: string) => `{${t.prefix}:s}:${n}`;
    expect(await ECHO.run(t.redis, [key('a'), key('b')], ['x', 'y'])).toEqual([2, key('b'), 'x', 'y']);
    expect(await ECHO.run(t.redis, [key('a'), key('c')], [])).toEqual([2, key('c')]);
    expect(await COUNT.run(t.redis, [key('a'), key('b'), key('c')], [])).toBe(3);
    expect(await COUNT.run(t.redis, [key('a')], [])).toBe(1);
    expect(await t.redis.get(key('a'))).toBe('2');
    expect(define.mock.calls.map((c) => c[0]).sort()).toEqual([COUNT.name, ECHO.name].sort());
    define.mockRestore();
    // A wrong key count is refused before anything is sent (the compiler refuses it too).
    await expect(ECHO.run(t.redis, [key('a')] as unknown as [string, string], [])).rejects.toThrow(/takes 2 keys, got 1/);
  });

  it('runs again after Redis forgot its scripts (restart, failover)', async () => {
    const key = `{${t.prefix}:s}:flushed`;
    expect(await COUNT.run(t.redis, [key], [])).toBe(1);
    await t.redis.script('FLUSH');
    expect(await COUNT.run(t.redis, [key], [])).toBe(1);
    expect(await t.redis.get(key)).toBe('2');
  });

  it('runs inside a MULTI', async () => {
    const key = `{${t.prefix}:s}:multi`;
    COUNT.define(t.redis);
    const steps = t.redis.multi().set(key, '10');
    COUNT.queue(steps, [key], []);
    const answers = await steps.exec();
    expect(answers).toEqual([
      [null, 'OK'],
      [null, 1],
    ]);
    expect(await t.redis.get(key)).toBe('11');
  });

  it("has every script on a new client before it sends anything: a script's first call beside other commands of its tick (one auto-pipeline) answers", async () => {
    const client = createRedis(t.url);
    await waitForRedis(client, t.url);
    try {
      const [before, state] = await Promise.all([
        client.get(t.keys.readModelVersion),
        SCRIPTS.readModel.read.run(client, [t.keys.readModelVersion, t.keys.readModelLsn], []),
      ]);
      expect(before).toBeNull();
      expect(state[0]).toMatch(/^\d+$/);
    } finally {
      client.disconnect();
    }
  });
});

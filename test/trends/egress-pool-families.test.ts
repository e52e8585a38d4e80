// The egress pool's endpoint families (src/providers/contract.ts): Google's explore family is
// limited as a token bucket (gtrends, 2026-09-09) whose refill the route learns
// from when Google's rate-limit 429s arrive, shared by every process through
// Redis; and a block of one family cools that family down, the route's other
// families going on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressPool, type EgressPoolOptions } from '../../src/providers/google/egress/egress-pool.js';
import type { EgressRoute } from '../../src/providers/google/egress/routes.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
let n = 0;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(() => redis.destroy());

const A: EgressRoute = { name: 'proxy-a:3128' };
const B: EgressRoute = { name: 'proxy-b:3128' };
const options: EgressPoolOptions = {
  requestsPerMinute: 0,
  cooldownMs: 60_000,
  cooldownMaxMs: 400_000,
  refusedPauseMs: 120_000,
  requestTimeoutMs: 10_000,
  random: () => 0.5,
};
const pool = (routes: EgressRoute[], extra: Partial<EgressPoolOptions> = {}) => {
  const prefix = `{${redis.prefix}:trends-families:${(n += 1)}}`;
  return new EgressPool(redis.redis, prefix, routes, { ...options, ...extra });
};

describe("the egress pool's endpoint families", () => {
  it("lets the explore family's burst go at once, then holds it to the refill; other families take no token", async () => {
    // A burst of 3 refilled at 6 a minute (a token every 10 s); no wait inside a request, so a far slot is refused as busy.
    const p = pool([A], { exploreBurst: 3, exploreRefillPerMinute: { first: 6, least: 1, most: 12 }, embedGapMs: 0 });
    for (let i = 0; i < 3; i += 1) await p.pace(A, 'job-1', false, 'explore');
    const refused = await p.pace(A, 'job-1', false, 'explore').catch((error: unknown) => error);
    expect(refused).toMatchObject({ reason: 'busy' });
    expect((refused as { waitMs: number }).waitMs).toBeGreaterThan(8_000);
    expect((refused as { waitMs: number }).waitMs).toBeLessThanOrEqual(10_000);
    for (let i = 0; i < 20; i += 1) await p.pace(A, 'job-1', false, 'widgetdata');
    const [state] = await p.budget();
    // The bucket ran dry a burst after the last word from Google (none yet) without a 429: the refill is tried a tenth higher.
    expect(state!.exploreBucket).toMatchObject({ tokens: 0, refillPerMinute: 6.6, rateLimits: 0 });
    expect(state!.families.explore.requests).toBe(3);
    expect(state!.families.widgetdata.requests).toBe(20);
  });

  it("learns the refill from Google's rate-limit 429s: lower when Google served fewer between two of them than the bucket let through, never under the least", async () => {
    const p = pool([A], { exploreBurst: 90, exploreRefillPerMinute: { first: 60, least: 10, most: 120 } });
    const t = Date.now();
    // No earlier 429 to measure from: three quarters of the first guess, and the bucket is empty.
    expect(await p.exploreRateLimited(A, 'job-1', t)).toEqual({ waitMs: 1334, refillPerMinute: 45 });
    // 21 explore requests taken from the bucket before the next 429, two minutes on: Google served 20, 10 a minute.
    await redisSetTaken(p, A, 21);
    expect(await p.exploreRateLimited(A, 'job-1', t + 120_000)).toEqual({ waitMs: 6000, refillPerMinute: 10 });
    // None served in between: the measure is under the least; the least is kept.
    expect(await p.exploreRateLimited(A, 'job-1', t + 180_000)).toEqual({ waitMs: 6000, refillPerMinute: 10 });
    const [state] = await p.budget(undefined, t + 180_000);
    expect(state!.exploreBucket).toMatchObject({ tokens: 0, refillPerMinute: 10, rateLimits: 3 });
    // The bucket is shared: another pool over the same keys (another process) waits for the next token too.
    const other = new EgressPool(redis.redis, (p as unknown as { prefix: string }).prefix, [A], options);
    const [seen] = await other.budget(undefined, t + 180_000);
    expect(seen!.exploreBucket.rateLimits).toBe(3);
  });

  it("cools down only the family Google blocked: the route's other families go on, and a job for the blocked family gets another route", async () => {
    const p = pool([A, B]);
    await p.acquire('job-1', [], Date.now(), false, 'explore');
    const { started } = await p.blocked(A, 'job-1', Date.now(), { kind: 'sorry_302', family: 'explore' });
    expect(started).toBe(true);
    await expect(p.pace(A, 'job-1', false, 'explore')).rejects.toMatchObject({ reason: 'cooling' });
    await p.pace(A, 'job-2', false, 'autocomplete');
    await p.pace(A, 'job-2', false, 'widgetdata');
    await p.pace(A, 'job-2', false, 'trending');
    // A new explore job goes to B; an autocomplete job may still take A.
    for (let i = 0; i < 4; i += 1) {
      const lease = await p.acquire(`explore-${i}`, [], Date.now(), false, 'explore');
      expect('route' in lease && lease.route.name).toBe(B.name);
    }
    const routes = new Set<string>();
    for (let i = 0; i < 4; i += 1) {
      const lease = await p.acquire(`autocomplete-${i}`, [], Date.now(), false, 'autocomplete');
      if ('route' in lease) routes.add(lease.route.name);
    }
    expect(routes.has(A.name)).toBe(true);
    const [a] = await p.budget();
    expect(a!.families).toMatchObject({
      explore: { state: 'cooling' },
      autocomplete: { state: 'open' },
      widgetdata: { state: 'open' },
      embed: { state: 'open' },
      trending: { state: 'open' },
    });
    expect(a!.state).toBe('cooling');
  });

  it("hands the blocked family's probe to one job when its cooldown ends; its answer opens the family", async () => {
    const p = pool([A]);
    await p.acquire('job-1', [], Date.now(), false, 'explore');
    await p.blocked(A, 'job-1', Date.now() - 60_001, { kind: 'sorry_302', family: 'explore' });
    expect(await p.acquire('job-2', [], Date.now(), false, 'explore')).toEqual({ route: A, probe: true });
    await expect(p.pace(A, 'job-3', false, 'explore')).rejects.toMatchObject({ reason: 'probe' });
    await p.pace(A, 'job-3', false, 'autocomplete'); // another family needs no probe
    await p.pace(A, 'job-2', false, 'explore');
    await p.answered(A, 'job-2', 'answers');
    await p.pace(A, 'job-3', false, 'explore');
    const [state] = await p.budget();
    expect(state!.families.explore.state).toBe('open');
    expect(state!.state).toBe('open');
  });

  it("gives a family's probe no job holds to the job whose next request is of that family, instead of waiting for a holder that never comes", async () => {
    // job-1 holds the route for explore (its first request); widget data, blocked earlier, has cooled down and needs a probe
    // that no job holds (acquire hands a probe only for a job's first family). Before the fix, job-1's widget request waited
    // "a probe is asking whether Google still blocks us" for ever (the fresh-clone CI of d381006, google-e2e).
    const p = pool([A]);
    await p.acquire('job-0', [], Date.now(), false, 'widgetdata');
    await p.blocked(A, 'job-0', Date.now() - 60_001, { kind: 'sorry_302', family: 'widgetdata' });
    await p.release(A, 'job-0', false);
    expect(await p.acquire('job-1', [], Date.now(), false, 'explore')).toEqual({ route: A, probe: false });
    await p.pace(A, 'job-1', false, 'explore');
    await p.pace(A, 'job-1', false, 'widgetdata'); // job-1 takes the widget-data probe
    await expect(p.pace(A, 'job-2', false, 'widgetdata')).rejects.toMatchObject({ reason: 'probe' }); // job-1's lease runs
    await p.answered(A, 'job-1', 'answers');
    await p.pace(A, 'job-2', false, 'widgetdata');
    const [state] = await p.budget();
    expect(state!.families.widgetdata.state).toBe('open');
  });

  it("learns that Google blocks the whole address when a second family meets a block while the first cools down: the next blocks cool the whole route, every route's", async () => {
    const p = pool([A, B]);
    await p.acquire('job-1', [], Date.now(), false, 'explore');
    await p.blocked(A, 'job-1', Date.now(), { kind: 'sorry_302', family: 'explore' });
    expect((await p.budget())[0]!.blocksWholeRoute).toBe(false);
    await p.pace(A, 'job-2', false, 'autocomplete'); // another family goes on, as Google of September 2026 allows
    await p.blocked(A, 'job-2', Date.now(), { kind: 'sorry_302', family: 'autocomplete' });
    const [state] = await p.budget();
    expect(state!.blocksWholeRoute).toBe(true);
    // The block covers the address: no family asks into it.
    await expect(p.pace(A, 'job-3', false, 'trending')).rejects.toMatchObject({ reason: 'cooling' });
    await expect(p.pace(A, 'job-3', false, 'widgetdata')).rejects.toMatchObject({ reason: 'cooling' });
    expect(Object.values(state!.families).every((f) => f.state === 'cooling')).toBe(true);
    // Route B's first block, of one family, cools all of B at once: Google's way of blocking was learned on A.
    await p.blocked(B, 'job-4', Date.now(), { kind: 'sorry_302', family: 'explore' });
    await expect(p.pace(B, 'job-5', false, 'autocomplete')).rejects.toMatchObject({ reason: 'cooling' });
  });

  it("ends the probe of a family Google answered when the same job's next family is blocked (outside review of 51)", async () => {
    const p = pool([A]);
    await p.acquire('job-0', [], Date.now(), false, 'explore');
    await p.blocked(A, 'job-0', Date.now() - 60_001, { kind: 'sorry_302', family: 'explore' });
    expect(await p.acquire('job-1', [], Date.now(), false, 'explore')).toEqual({ route: A, probe: true });
    await p.pace(A, 'job-1', false, 'explore'); // the probe: Google answers the explore
    await p.pace(A, 'job-1', false, 'widgetdata');
    await p.answeredBeforeBlock(A, 'job-1', 'widgetdata');
    await p.blocked(A, 'job-1', Date.now(), { kind: 'sorry_302', family: 'widgetdata' });
    const [state] = await p.budget();
    expect(state!.families.explore.state).toBe('open');
    await p.pace(A, 'job-2', false, 'explore'); // before the fix: 'probe' until job-1's lease ran out
  });

  it("lets a job take over a family's probe whose holder's lease ran out (the holder crashed)", async () => {
    const p = pool([A], { requestTimeoutMs: 1 });
    await p.acquire('job-0', [], Date.now(), false, 'explore');
    await p.blocked(A, 'job-0', Date.now() - 60_001, { kind: 'sorry_302', family: 'explore' });
    expect(await p.acquire('job-1', [], Date.now(), false, 'explore')).toEqual({ route: A, probe: true });
    const prefix = (p as unknown as { prefix: string }).prefix;
    await redis.redis.hset(`${prefix}:route:${A.name}`, 'probe_until:explore', Date.now() - 1); // job-1 died; its lease ran out
    await p.pace(A, 'job-2', false, 'explore');
    expect(await redis.redis.hget(`${prefix}:route:${A.name}`, 'probe_job:explore')).toBe('job-2');
  });
});

/** The count of explore tokens the route's bucket handed out (as if the requests had been paced). */
async function redisSetTaken(p: EgressPool, route: EgressRoute, taken: number): Promise<void> {
  const prefix = (p as unknown as { prefix: string }).prefix;
  await redis.redis.hincrby(`${prefix}:route:${route.name}`, 'bucket_taken', taken);
}

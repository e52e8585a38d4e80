// The egress routes' shared state in Redis: requests paced per route (not per
// job), a cooldown after a block that grows while Google keeps blocking, one
// probe per cooldown while the other jobs wait for its answer, Google's
// Retry-After as a floor, a refusal that sends the request to another route,
// the embed pages' own pace and quota, the routes' cookies and labels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressPool, RouteWaitError, type EgressPoolOptions, type Lease } from '../../src/providers/google/egress/egress-pool.js';
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
/** A pool with keys of its own (each test starts from fresh routes). */
const pool = (routes: EgressRoute[], extra: Partial<EgressPoolOptions> = {}) =>
  new EgressPool(redis.redis, `{${redis.prefix}:trends:${(n += 1)}}`, routes, { ...options, ...extra });
const routeOf = (lease: Lease) => ('route' in lease ? lease.route.name : undefined);

describe('the egress pool', () => {
  it('paces HTTPS requests per route, whichever job sends them: each waits for the slot after the last', async () => {
    // 600 a minute: 100 ms apart (± 20 %, here exactly: random() = 0.5).
    const p = pool([A], { requestsPerMinute: 600 });
    const sent: number[] = [];
    const started = Date.now();
    await Promise.all(['job-1', 'job-2', 'job-1', 'job-2', 'job-1'].map((job) => p.pace(A, job).then(() => sent.push(Date.now()))));
    sent.sort((a, b) => a - b);
    // Five requests take at least four intervals; a slow machine only spreads them more.
    expect(sent.at(-1)! - started).toBeGreaterThanOrEqual(4 * 100 - 5);
    const [budget] = await p.budget();
    expect(budget).toMatchObject({ requestsLastHour: 5, requests: 5, state: 'open' });
  });

  it('does not let a job wait inside its request for a slot further than paceWaitSlots intervals: it waits outside, without an attempt', async () => {
    const p = pool([A], { requestsPerMinute: 60, jitter: 0, paceWaitSlots: 2, embedGapMs: 0 }); // 1 s apart: slots now, +1 s, +2 s may be waited for
    const results = await Promise.all(
      [1, 2, 3, 4].map((j) =>
        p.pace(A, `job-${j}`).then(
          () => 'sent',
          (e: unknown) => e,
        ),
      ),
    );
    expect(results.filter((r) => r === 'sent')).toHaveLength(3);
    const busy = results.find((r) => r !== 'sent');
    expect(busy).toBeInstanceOf(RouteWaitError);
    expect(busy).toMatchObject({ reason: 'busy', route: A.name });
    expect((busy as RouteWaitError).waitMs).toBeGreaterThan(2_000);
  });

  it('lets a job that has begun its exchanges wait for its next slot rather than throw away what it sent', async () => {
    // 60 a minute, 2 slots (2 s) may be waited for by a new job; one already sending waits longer.
    const p = pool([A], { requestsPerMinute: 60, jitter: 0, paceWaitSlots: 2, embedGapMs: 0 });
    const begun = p.pacers(A, 'job-begun');
    await begun.pace();
    await begun.sent();
    // Two other jobs hold the next slots (+1 s, +2 s): the next, +3 s, is too far for a new job.
    const others = [1, 2].map((j) => p.pace(A, `job-${j}`).catch((e: unknown) => e));
    await expect(p.pace(A, 'job-new')).rejects.toMatchObject({ reason: 'busy' });
    await expect(begun.pace()).resolves.toBeUndefined();
    await begun.sent();
    expect((await Promise.all(others)).every((r) => r === undefined)).toBe(true);
  });

  it('cools a blocked route down, longer with each block in a row, and sends one probe when a cooldown ends while the others wait for it', async () => {
    const p = pool([A]);
    const t0 = 1_000_000;
    const lease = await p.acquire('job-1', [], t0);
    expect(lease).toEqual({ route: A, probe: false });
    expect(await p.blocked(A, 'job-1', t0)).toEqual({ cooldownMs: 60_000, started: true });
    // A request that was in flight when the block began does not lengthen it.
    expect(await p.blocked(A, 'job-2', t0 + 10)).toEqual({ cooldownMs: 60_000 - 10, started: false });
    expect(await p.acquire('job-2', [], t0 + 30_000)).toEqual({ waitMs: 30_000, reason: 'cooling' });

    // The cooldown ends: the first job to ask gets the probe; the others wait for its answer.
    expect(await p.acquire('job-2', [], t0 + 60_001)).toEqual({ route: A, probe: true });
    expect(await p.acquire('job-3', [], t0 + 60_002)).toMatchObject({ reason: 'probe' });
    expect(await p.acquire('job-4', [], t0 + 60_003)).toMatchObject({ reason: 'probe' });
    // Blocked again: twice as long.
    expect(await p.blocked(A, 'job-2', t0 + 60_100)).toEqual({ cooldownMs: 120_000, started: true });
    expect(await p.acquire('job-3', [], t0 + 180_101)).toEqual({ route: A, probe: true });
    expect(await p.blocked(A, 'job-3', t0 + 180_200)).toEqual({ cooldownMs: 240_000, started: true });
    expect(await p.acquire('job-4', [], t0 + 420_201)).toEqual({ route: A, probe: true });
    expect(await p.blocked(A, 'job-4', t0 + 420_300)).toEqual({ cooldownMs: 400_000, started: true }); // the longest
    // This probe is served: the route is open to every job again.
    expect(await p.acquire('job-5', [], t0 + 820_301)).toEqual({ route: A, probe: true });
    await p.answered(A, 'job-5', 'answers');
    expect(routeOf(await p.acquire('job-6', [], t0 + 820_400))).toBe(A.name);
    expect(routeOf(await p.acquire('job-7', [], t0 + 820_401))).toBe(A.name);
    const [state] = await p.budget(undefined, t0 + 820_402);
    expect(state).toMatchObject({ state: 'open', streak: 0, cooldowns: 4, probes: 4, blocked: 5, answers: 1 });
  });

  it('gives a probe lost with its job (a network error) to the next job, and stops a job that is not the probe from sending meanwhile', async () => {
    const p = pool([A]);
    await p.acquire('job-1');
    await p.blocked(A, 'job-1', Date.now() - 60_001); // a block whose cooldown is over
    expect(await p.acquire('job-2')).toEqual({ route: A, probe: true });
    // job-1 still holds the route from before the block: its next request must not go.
    await expect(p.pace(A, 'job-1')).rejects.toMatchObject({ reason: 'probe' });
    await p.pace(A, 'job-2');
    await p.release(A, 'job-2', true);
    expect(await p.acquire('job-3')).toEqual({ route: A, probe: true });
    const [state] = await p.budget();
    expect(state).toMatchObject({ state: 'probing', probes: 2, cooldowns: 1, errors: 1 });
  });

  it('pauses a route that refused a request and sends it to another; refused on every route, it is the request', async () => {
    const p = pool([A, B]);
    const first = await p.acquire('job-1');
    const refusedBy = [routeOf(first)!];
    await p.refused('route' in first ? first.route : A, 'job-1');
    // The same request skips the route that refused it; another request waits for it (paused).
    const second = await p.acquire('job-1', refusedBy);
    expect(routeOf(second)).not.toBe(refusedBy[0]);
    expect(routeOf(await p.acquire('job-2'))).not.toBe(refusedBy[0]);
    expect(await p.acquire('job-1', [A.name, B.name])).toEqual({ refusedEverywhere: true });
    const states = await p.budget();
    expect(states.find((s) => s.route === refusedBy[0])).toMatchObject({ state: 'refused', refused: 1 });
    await p.clearRefusals(refusedBy);
    expect((await p.budget()).every((s) => s.state === 'open')).toBe(true);
  });

  it("never cools down for less than Google's Retry-After, and lengthens a running cooldown to it; counts blocks by how they came", async () => {
    const p = pool([A]);
    const t0 = 2_000_000;
    await p.acquire('job-1', [], t0);
    // Google asks for 30 minutes where the first cooldown is one: 30 it is.
    expect(await p.blocked(A, 'job-1', t0, { kind: 'too_many_429', retryAfterMs: 1_800_000 })).toEqual({
      cooldownMs: 1_800_000,
      started: true,
    });
    expect(await p.acquire('job-2', [], t0 + 1_000_000)).toMatchObject({ reason: 'cooling', waitMs: 800_000 });
    // A request in flight meets a block asking for longer still: the running cooldown is made that long.
    expect(await p.blocked(A, 'job-2', t0 + 1_000_000, { kind: 'forbidden_403', retryAfterMs: 3_600_000 })).toEqual({
      cooldownMs: 3_600_000,
      started: false,
    });
    expect(await p.acquire('job-3', [], t0 + 4_000_000)).toMatchObject({ reason: 'cooling', waitMs: 600_000 });
    const [state] = await p.budget(undefined, t0 + 4_000_000);
    expect(state).toMatchObject({
      blocked: 2,
      blocksByKind: { sorry_302: 0, too_many_429: 1, forbidden_403: 1, unusual_traffic: 0 },
      cooldowns: 1,
    });
  });

  it('paces embed pages by their own gap on top of the request pace, and closes only the embed pages after an over-quota token, longer each time in a row', async () => {
    const p = pool([A], { requestsPerMinute: 6_000, jitter: 0, embedGapMs: 300, embedCooldownMs: 1_000, cooldownMaxMs: 3_000 });
    const sent: number[] = [];
    const started = Date.now();
    // Three embed pages and three other requests: the embed pages go 300 ms apart, the others at the request pace (10 ms).
    await Promise.all([
      ...[1, 2, 3].map((j) => p.pace(A, `embed-${j}`, true).then(() => sent.push(Date.now() - started))),
      ...[1, 2, 3].map((j) => p.pace(A, `plain-${j}`).then(() => undefined)),
    ]);
    sent.sort((a, b) => a - b);
    expect(sent.at(-1)!).toBeGreaterThanOrEqual(2 * 300 - 5);
    const [budget] = await p.budget();
    expect(budget).toMatchObject({ requests: 6, embedRequests: 3 });

    const t0 = Date.now();
    expect(await p.embedOverQuota(A, 'embed-4', t0)).toBe(1_000);
    expect(await p.embedOverQuota(A, 'embed-5', t0 + 10)).toBe(990); // an over-quota page that was on its way does not lengthen it
    expect(await p.acquire('embed-6', [], t0 + 500, true)).toMatchObject({ reason: 'embed_quota', waitMs: 500 });
    expect(routeOf(await p.acquire('plain-4', [], t0 + 500))).toBe(A.name); // the route's other requests go on
    await expect(p.pace(A, 'embed-6', true)).rejects.toMatchObject({ reason: 'embed_quota' });
    expect(await p.embedOverQuota(A, 'embed-7', t0 + 1_001)).toBe(2_000); // again in a row: twice as long
    expect(await p.embedOverQuota(A, 'embed-8', t0 + 3_002)).toBe(3_000); // up to the longest cooldown
    await p.answered(A, 'embed-9', 'answers', { embed: true }); // served within the quota: the next wait starts short again
    expect(await p.embedOverQuota(A, 'embed-10', t0 + 6_003)).toBe(1_000);
    const [after] = await p.budget(undefined, t0 + 6_003);
    expect(after).toMatchObject({ overQuota: 5, embedWaitMs: 1_000 });
  });

  it('stops an embed page that was waiting for its slot when the embed quota is spent meanwhile; with no embed gap, the quota still holds', async () => {
    const p = pool([A], { requestsPerMinute: 6_000, jitter: 0, embedGapMs: 400, embedCooldownMs: 60_000 });
    await p.pace(A, 'embed-1', true);
    // The next embed page's slot is 400 ms away; Google says the quota is spent before it comes.
    const waiting = p.pace(A, 'embed-2', true).then(
      () => 'sent',
      (e: unknown) => e,
    );
    await p.embedOverQuota(A, 'embed-1');
    expect(await waiting).toMatchObject({ reason: 'embed_quota' });
    await p.pace(A, 'plain-1'); // the route's other requests go on

    const gapless = pool([A], { embedGapMs: 0, embedCooldownMs: 60_000 });
    await gapless.embedOverQuota(A, 'embed-3');
    await expect(gapless.pace(A, 'embed-4', true)).rejects.toMatchObject({ reason: 'embed_quota' });
    expect(await gapless.acquire('embed-4', [], Date.now(), true)).toMatchObject({ reason: 'embed_quota' });
  });

  it("keeps each route's cookie for every process, the newest one, and remembers how Google labels the route", async () => {
    const p = pool([A, B]);
    await p.cookies.set(A.name, 'NID=1');
    expect(await pool([A]).cookies.get(A.name)).toBeUndefined(); // another pool's keys: another deployment
    expect(await p.cookies.get(A.name)).toBe('NID=1');
    expect(await p.cookies.get(B.name)).toBeUndefined();
    await p.cookies.set(A.name, 'NID=2'); // a fresh one replaces it
    expect(await p.cookies.get(A.name)).toBe('NID=2');
    expect(await redis.redis.ttl(`${(p as unknown as { prefix: string }).prefix}:route:${A.name}:cookie`)).toBeGreaterThan(29 * 86_400);

    expect(await p.labelled(A, 'USER_TYPE_SCRAPER')).toEqual({ changed: false, before: null });
    expect(await p.labelled(A, 'USER_TYPE_SCRAPER')).toEqual({ changed: false, before: 'USER_TYPE_SCRAPER' });
    expect(await p.labelled(A, 'USER_TYPE_LEGIT_USER')).toEqual({ changed: true, before: 'USER_TYPE_SCRAPER' });
    const [a] = await p.budget();
    expect(a).toMatchObject({ userType: 'USER_TYPE_LEGIT_USER', userTypeSince: expect.stringMatching(/^\d{4}-/) });
  });
});

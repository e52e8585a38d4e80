// `insights google check` against the loopback Google, through a CONNECT proxy
// as in production: each kind the product sends, how Google answered it and
// its latency; exit 1 when a kind research or discovery needs is broken.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { routesFrom } from '../../src/providers/google/egress/routes.js';
import { EgressPool } from '../../src/providers/google/egress/egress-pool.js';
import { runCli } from '../support/cli.js';
import { createTestRedis, type TestRedis } from '../support/redis.js';

let g: GoogleOnLoopback;
let redis: TestRedis;
/** The check runs inside the route's pace (shared through Redis); unpaced here, as the loopback Google is. */
let env: Record<string, string>;
beforeAll(async () => {
  g = await startGoogleOnLoopback({ proxies: 1, requestsPerMinute: 0, embedMinGapMs: 0 });
  redis = await createTestRedis();
  env = { ...g.env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, TRENDS_REQUESTS_PER_MINUTE: '0', TRENDS_EMBED_GAP_MS: '0' };
});
afterAll(async () => {
  await redis.destroy();
  await g.stop();
});
const pool = () =>
  new EgressPool(redis.redis, redis.keys.trendsPool, routesFrom(g.env.TRENDS_PROXY_URLS!.split(',')), {
    requestsPerMinute: 0,
    cooldownMs: 600_000,
    cooldownMaxMs: 3_600_000,
    refusedPauseMs: 600_000,
    requestTimeoutMs: 20_000,
  });
beforeEach(async () => {
  // Each test starts from a free route: no cooldown, no embed wait, no counts of the day.
  for (const key of await redis.redis.keys(`${redis.keys.trendsPool}*`)) await redis.redis.del(key);
  g.google.blockAll(false);
  g.google.answerWith('multiline', undefined);
  g.google.answerWith('home', undefined);
  g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
});

interface Checked {
  kinds: Array<{ kind: string; outcome: string; ms: number | null; neededBy: string; broken: boolean; detail: string }>;
  broken: string[];
  route: string;
  geo: string;
  userType: { explore: string | null; embed: string | null };
}
const check = async (...args: string[]) => {
  const result = await runCli(['google', 'check', ...args], env);
  return { ...result, json: args.includes('--json') && result.stdout ? (JSON.parse(result.stdout) as Checked) : undefined };
};

describe('insights google check', () => {
  it("reports each kind as Google answers it today, with its latency and the labels Google gives the client: the cookie from the home page, the embed flow's related queries, the explore widgets' empty lists expected", async () => {
    const { code, json, stderr } = await check('--geo', 'US', '--json');
    expect(code, stderr).toBe(0);
    expect(json!.route).toBe(new URL(g.proxies[0]!.url).host);
    const byKind = Object.fromEntries(json!.kinds.map((k) => [k.kind, k]));
    expect(Object.keys(byKind)).toEqual([
      'home_page',
      'cookie_page',
      'explore',
      'multiline',
      'comparedgeo',
      'relatedsearches',
      'embed_page',
      'embed_relatedsearches',
      'autocomplete',
      'trending_rss',
      'trending_rpc',
      'trending_page',
    ]);
    for (const kind of [
      'home_page',
      'explore',
      'multiline',
      'comparedgeo',
      'embed_page',
      'embed_relatedsearches',
      'trending_rss',
      'trending_rpc',
      'trending_page',
    ]) {
      expect(byKind[kind], kind).toMatchObject({ outcome: 'served', broken: false, ms: expect.any(Number) });
    }
    expect(byKind.cookie_page).toMatchObject({
      outcome: 'not_asked',
      broken: false,
      detail: expect.stringMatching(/not needed: the home page handed out the cookie/),
    });
    expect(byKind.relatedsearches).toMatchObject({
      outcome: 'empty',
      broken: false,
      detail: expect.stringMatching(/expected: the explore page's own widgets serve automated clients empty related lists/),
    });
    expect(byKind.embed_relatedsearches).toMatchObject({ detail: expect.stringMatching(/^\d+ top, \d+ rising$/) });
    expect(byKind.trending_rss).toMatchObject({ neededBy: 'discovery', detail: '20 trending searches' });
    expect(json!.userType).toEqual({ explore: 'USER_TYPE_SCRAPER', embed: 'USER_TYPE_EMBED' });
    expect(json!.broken).toEqual([]);
    // The check's own cookie: nothing sent without one after the home page.
    const asked = [
      'home',
      'explore',
      'multiline',
      'comparedgeo',
      'relatedsearches',
      'embed',
      'relatedsearches',
      'autocomplete',
      'trending_rss',
      'trending_rpc',
      'trending_page',
    ];
    expect(g.google.log.slice(-asked.length).map((r) => r.kind)).toEqual(asked);

    const human = await check();
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/relatedsearches\s+empty\s+\d+\s+research\s+ok/);
    expect(human.stdout).toContain('How Google labels this client: USER_TYPE_SCRAPER (explore), USER_TYPE_EMBED (embed)');
    expect(human.stdout).toContain('Every kind research and discovery need answers as expected.');
  });

  it('says when the home page stops handing out the cookie but the explore page does, and when the embed quota is spent (not a change of Google)', async () => {
    g.google.answerWith('home', { status: 200, body: '<html>Google Trends</html>', contentType: 'text/html' });
    g.google.setLimits({ requestsPerMinute: 0, warm: false, embedMinGapMs: 60_000, embedPenaltyMs: 60_000 });
    await check('--json'); // spends the embed page of the minute
    const { code, json } = await check('--json');
    expect(code).toBe(0);
    const byKind = Object.fromEntries(json!.kinds.map((k) => [k.kind, k]));
    expect(byKind.home_page).toMatchObject({ outcome: 'empty', broken: false, detail: expect.stringMatching(/handed out no NID cookie/) });
    expect(byKind.cookie_page).toMatchObject({ outcome: 'served', broken: false });
    expect(byKind.embed_page).toMatchObject({
      outcome: 'over_quota',
      broken: false,
      detail: expect.stringMatching(/embed quota is spent/),
    });
    expect(byKind.embed_relatedsearches).toMatchObject({
      outcome: 'not_asked',
      broken: false,
      detail: expect.stringMatching(/embed quota is spent/),
    });
    expect(json!.userType.embed).toBe('USER_TYPE_EMBED_OVER_QUOTA');
    // The route's embed pages now wait (the pool was told, as for any job): the next check leaves only them out.
    const next = await check('--json');
    expect(next.code).toBe(0);
    const nextByKind = Object.fromEntries(next.json!.kinds.map((k) => [k.kind, k]));
    expect(nextByKind.embed_page).toMatchObject({
      outcome: 'not_asked',
      broken: false,
      detail: expect.stringMatching(/embed pages .* wait/),
    });
    expect(nextByKind.autocomplete).toMatchObject({ outcome: 'served' });
    expect(nextByKind.trending_rss).toMatchObject({ outcome: 'served' });
  });

  it('exits 1 and names the kind when Google answers one in a shape it does not know', async () => {
    g.google.answerWith('multiline', { status: 200, body: `)]}',\n{"default":{"timeline":[]}}` });
    const { code, json } = await check('--json');
    expect(code).toBe(1);
    expect(json!.broken).toEqual(['multiline']);
    expect(json!.kinds.find((k) => k.kind === 'multiline')).toMatchObject({
      outcome: 'changed_shape',
      broken: true,
      detail: expect.stringMatching(/no default.timelineData array/),
    });
    const human = await check();
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/multiline\s+changed shape\s+\d+\s+research\s+BROKEN/);
    expect(human.stdout).toContain('BROKEN: multiline: Google answered, but not as this client reads it.');
    expect(human.stdout).not.toContain('CANNOT REACH GOOGLE');
  });

  it('tells "cannot reach Google" (the proxy refuses the connection) apart from "Google changed": its own message, exit 4', async () => {
    // A loopback port nothing listens on: the egress proxy cannot be reached, so nothing of Google's is read.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const before = g.google.totalRequests();
    const result = await runCli(['google', 'check'], { ...env, TRENDS_PROXY_URLS: `http://127.0.0.1:${closed}` });
    expect(g.google.totalRequests()).toBe(before);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toMatch(/CANNOT REACH GOOGLE via 127\.0\.0\.1:\d+: /);
    expect(result.stdout).toContain('says nothing of whether Google changed');
    expect(result.stdout).not.toContain('BROKEN');
    expect(result.stdout).not.toContain('Google changed".');
  });

  it("asks nothing while the route cools down (the workers' pace holds for the check too), and says so", async () => {
    await pool().blocked(pool().routes[0]!, 'a worker job');
    try {
      const before = g.google.totalRequests();
      const { code, json } = await check('--json');
      expect(g.google.totalRequests()).toBe(before);
      expect(code).toBe(3); // not checked: neither broken nor fine
      expect(json!.kinds.every((k) => k.outcome === 'not_asked' && !k.broken)).toBe(true);
      expect(json!.kinds[0]!.detail).toMatch(/not asked: route .* cooling down after Google blocked it/);
    } finally {
      await redis.redis.del(`${redis.keys.trendsPool}:route:${pool().routes[0]!.name}`);
    }
  });

  it('stops each family at its block: the home page is blocked and nothing of its family is asked (asking would only lengthen the block); the trending feed, a family of its own, is asked once; the route cools down for the workers too', async () => {
    g.google.blockAll(true);
    const before = g.google.totalRequests();
    const { code, json } = await check('--json');
    expect(code).toBe(1);
    expect(json!.kinds.map((k) => k.outcome)).toEqual([
      'blocked', // home_page: explore's family
      'not_asked',
      'not_asked',
      'not_asked',
      'not_asked',
      'not_asked',
      'not_asked',
      'not_asked',
      'not_asked', // autocomplete: needs the cookie the home page did not hand out
      'blocked', // trending_rss: blocked too (this loopback blocks the whole address), which stops its family
      'not_asked',
      'not_asked',
    ]);
    expect(json!.kinds.find((k) => k.kind === 'cookie_page')).toMatchObject({
      broken: true,
      detail: expect.stringMatching(/Google blocked the explore family/),
    });
    expect(g.google.totalRequests() - before).toBe(2); // one per family: the home page and the trending feed
    expect((await pool().budget())[0]).toMatchObject({ state: 'cooling' });
    await redis.redis.del(`${redis.keys.trendsPool}:route:${pool().routes[0]!.name}`);
  });

  it('documents every exit code in its --help (review of issue 51: 5 was missing)', async () => {
    const { code, stdout } = await runCli(['google', 'check', '--help'], env);
    expect(code).toBe(0);
    const help = stdout.replace(/\s+/g, ' ');
    for (const [exit, meaning] of [
      [0, 'every kind answers'],
      [1, 'broken'],
      [2, 'usage error'],
      [3, "route's pace stopped the check"],
      [4, 'could not be reached'],
      [5, 'EU consent page'],
    ] as const)
      expect(help).toMatch(new RegExp(`[;:] ${exit} [^;]*${meaning}`));
  });

  it('refuses a bad country with a usage error', async () => {
    const { code, stderr } = await check('--geo', 'USA');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--geo must be a two-letter country code such as US/);
  });
});

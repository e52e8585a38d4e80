// The Google client against the loopback Google, answering as Google answers
// automated clients in late 2026, through CONNECT proxies on loopback: no
// interception, the production path (egress agent, TLS for trends.google.com,
// the home page for the cookie, the embed flow for related lists, browser
// headers, every answer classified in one place).
import https from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleOnLoopback, type GoogleOnLoopback } from '../../scripts/lib/google-on-loopback/index.js';
import { routesFrom, type EgressRoute } from '../../src/providers/google/egress/routes.js';
import { forgetGoogleCookies, type ExchangeReport } from '../../src/providers/google/client.js';
import { GoogleTrendsProvider } from '../../src/providers/google/provider.js';
import { modifierRequest } from '../../src/domain/research/modifier-evidence.js';
import { RateLimitedError, RefusedError } from '../../src/providers/contract.js';
import type { TrendsResponse } from '../../src/domain/trends/answers.js';

const NO_DATA = 'zzqx obscure phrase';
let g: GoogleOnLoopback;
let provider: GoogleTrendsProvider;
let routes: EgressRoute[];
const reports: ExchangeReport[] = [];

beforeAll(async () => {
  forgetGoogleCookies();
  g = await startGoogleOnLoopback({ proxies: 3, requestsPerMinute: 0, embedMinGapMs: 0, world: { noData: [NO_DATA] } });
  provider = new GoogleTrendsProvider({ ca: g.certificates.ca, timeoutMs: 10_000, observe: (r) => reports.push(r) });
  routes = routesFrom(g.proxies.map((p) => p.url));
});
afterAll(() => g.stop());
beforeEach(() => {
  g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
  reports.length = 0;
});

const as = <K extends TrendsResponse['kind']>(answer: TrendsResponse, kind: K) => {
  if (answer.kind !== kind) throw new Error(`expected ${kind}, got ${answer.kind}`);
  return answer as TrendsResponse & { kind: K };
};
const logOf = (proxy: number) => g.google.log.filter((r) => r.client === g.proxies[proxy]!.egressAddress);

/** A raw HTTPS request to the loopback Google from 127.0.0.1 (no proxy): what a bare client gets. */
function raw(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: g.google.port,
        servername: 'trends.google.com',
        ca: g.certificates.ca,
        path,
        headers: { host: 'trends.google.com', ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

describe("the Google client against today's Google (loopback)", () => {
  it('warms up on the home page before its first API call, sends every request as a browser, and classifies each answer', async () => {
    const answer = as(
      await provider.fetch(
        {
          kind: 'explore',
          keywords: ['meal planning'],
          timeframe: '12m',
          geo: '',
          parts: ['series', 'relatedQueries', 'relatedTopics', 'mapCountry', 'mapCity'],
        },
        routes[0],
      ),
      'explore',
    );
    expect(answer.series!.outcome).toBe('served');
    expect(Math.max(...answer.series!.points.map((p) => p.values[0]!))).toBe(100);
    expect(answer.mapCountry!.regions.some((r) => r.geoCode === 'US')).toBe(true);
    // The explore page's own related widgets come back empty, as Google serves them to automated clients; an explore's
    // related parts then fall back to the embed flow, as a list asked alone does (TRENDS_REQUEST_PLAN=shared, 2026-11-29).
    expect(answer.relatedQueries).toMatchObject({ outcome: 'served' });
    expect(answer.relatedQueries!.kind === 'relatedQueries' && answer.relatedQueries!.top.length).toBeGreaterThan(0);
    expect(answer.relatedTopics).toMatchObject({ top: [], rising: [], outcome: 'empty' });
    // By city: explore's map widget is by country, and a widget request is never edited: no data, nothing asked.
    expect(answer.mapCity).toMatchObject({ regions: [], outcome: 'no_data' });
    // The home page, the explore and four widgets, then two embed pages and their two widgets for the lists, over one
    // tunnel; the answer names the last road its lists took (embed), and the label of the client's latest token.
    expect(answer.provenance).toMatchObject({ requests: 10, route: routes[0]!.name, via: 'embed', userType: 'USER_TYPE_EMBED' });
    expect(g.proxies[0]!.tunnels).toBe(1);

    const log = logOf(0);
    // Each related list empty on explore's widget is asked once more through an embed page.
    expect(log.map((r) => r.kind)).toEqual([
      'home',
      'explore',
      'multiline',
      'relatedsearches',
      'embed',
      'relatedsearches',
      'relatedsearches',
      'embed',
      'relatedsearches',
      'comparedgeo',
    ]);
    expect(log.slice(1).every((r) => r.cookie)).toBe(true); // after the home page, no API call without the cookie
    expect(log.every((r) => /Chrome\/\d+/.test(r.userAgent ?? ''))).toBe(true);
    expect(g.google.counts.get('no-cookie-429')).toBeUndefined();
    expect(g.google.counts.get('warm-page-429')).toBeUndefined();
    expect(reports.map((r) => `${r.kind}:${r.outcome}`)).toEqual([
      'home_page:served',
      'explore:served',
      'multiline:served',
      'relatedsearches:empty',
      'embed_page:served',
      'embed_relatedsearches:served',
      'relatedsearches:empty',
      'embed_page:served',
      'embed_relatedsearches:empty',
      'comparedgeo:served',
    ]);

    // The cookie is the route's: the next request needs no page.
    const two = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning', 'weather'], timeframe: '90d', geo: '' }, routes[0]),
      'interestOverTime',
    );
    expect(two.provenance?.requests).toBe(2);
  });

  it('from a warm address only the home page hands out the cookie: the bare host redirects to it, the explore page and the API answer 429 without one; dailytrends is gone (404)', async () => {
    const bare = await raw('/trends/api/autocomplete/pizza?hl=en-US&tz=0');
    expect(bare.status).toBe(429);
    expect(bare.headers['set-cookie']).toBeUndefined();
    expect(bare.headers['retry-after']).toBeUndefined(); // "no cookie" is not a block
    const explorePage = await raw('/trends/explore?geo=US');
    expect(explorePage.status).toBe(429);
    expect(explorePage.headers['set-cookie']).toBeUndefined();
    const root = await raw('/');
    expect(root.status).toBe(301);
    expect(root.headers.location).toBe('https://trends.google.com/trends/');
    expect(root.headers['set-cookie']).toBeUndefined();
    const home = await raw('/trends/');
    expect(home.status).toBe(200);
    const nid = (home.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
    expect(nid).toMatch(/^NID=511=/);
    expect((await raw('/trends/api/autocomplete/pizza?hl=en-US&tz=0', { cookie: nid })).status).toBe(200);
    expect((await raw('/trends/explore?geo=US', { cookie: nid })).status).toBe(200);
    expect((await raw('/trends/api/dailytrends?hl=en-US&tz=0&geo=US&ns=15', { cookie: nid })).status).toBe(404);

    // A fresh address (as in the 2025 recording): the explore page with a trailing slash is a 404 that sets the cookie.
    g.google.setLimits({ requestsPerMinute: 0, warm: false });
    const page = await raw('/trends/explore/?geo=US');
    expect(page.status).toBe(404);
    expect((page.headers['set-cookie'] as string[])[0]).toMatch(/^NID=511=/);
  });

  it("reads related queries through the embed flow (the page, then its token) when explore's widget lists none, topics empty, and an embed page too soon after the last is over quota: explore's empty list, marked so, without a data request", async () => {
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 60_000, embedPenaltyMs: 60_000 });
    const queries = as(
      await provider.fetch({ kind: 'relatedQueries', keyword: 'meal planning', timeframe: '12m', geo: '' }, routes[1]),
      'relatedQueries',
    );
    expect(queries.outcome).toBe('served');
    expect(queries.top.length).toBeGreaterThan(3);
    expect(queries.top.every((i) => i.label.startsWith('meal planning '))).toBe(true);
    // home page, explore, its (empty) widget, embed page, data
    expect(queries.provenance).toMatchObject({ requests: 5, via: 'embed', userType: 'USER_TYPE_EMBED' });
    expect(logOf(1).map((r) => r.kind)).toEqual(['home', 'explore', 'relatedsearches', 'embed', 'relatedsearches']);

    // The next embed page within a minute is over the address's embed quota: no data request follows.
    const over = await provider.fetch({ kind: 'relatedTopics', keyword: 'meal planning', timeframe: '12m', geo: '' }, routes[1]);
    expect(over).toMatchObject({ outcome: 'empty', provenance: { via: 'explore', embedOverQuota: true } });
    expect(logOf(1).map((r) => r.kind)).toEqual([
      'home',
      'explore',
      'relatedsearches',
      'embed',
      'relatedsearches',
      'explore',
      'relatedsearches',
      'embed',
    ]);
    expect(logOf(1).at(-1)).toMatchObject({ overQuota: true, status: 200 });
    expect(reports.at(-1)).toMatchObject({ kind: 'embed_page', outcome: 'over_quota', userType: 'USER_TYPE_EMBED_OVER_QUOTA' });

    // Within the quota, topics come back empty through the embed flow too (Google's answer in 2026).
    g.google.resetClients();
    forgetGoogleCookies(routes[1]!.name);
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0 });
    const topics = as(
      await provider.fetch({ kind: 'relatedTopics', keyword: 'meal planning', timeframe: '12m', geo: '' }, routes[1]),
      'relatedTopics',
    );
    expect(topics).toMatchObject({ top: [], rising: [], outcome: 'empty', provenance: { via: 'embed' } });

    // The scenario of every list empty (as from 2024-08 until the embed flow was found): an answer, not an error.
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, everyListEmpty: true });
    const none = as(
      await provider.fetch({ kind: 'relatedQueries', keyword: 'solar panels', timeframe: '12m', geo: '' }, routes[1]),
      'relatedQueries',
    );
    expect(none).toMatchObject({ top: [], rising: [], outcome: 'empty', provenance: { via: 'embed', userType: 'USER_TYPE_EMBED' } });
  });

  it('labels every token: how Google labels the client travels with the answer', async () => {
    g.google.setUserType('USER_TYPE_LEGIT_USER');
    try {
      const answer = await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning'], timeframe: '90d', geo: '' }, routes[0]);
      expect(answer.provenance?.userType).toBe('USER_TYPE_LEGIT_USER');
      expect(reports.find((r) => r.kind === 'explore')?.userType).toBe('USER_TYPE_LEGIT_USER');
    } finally {
      g.google.setUserType('USER_TYPE_SCRAPER');
    }
  });

  it("says no data for a keyword with too little of it (zeros kept), on the map too; empty autocomplete; Google's OR syntax sums the terms", async () => {
    const none = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: [NO_DATA], timeframe: '90d', geo: '' }, routes[0]),
      'interestOverTime',
    );
    expect(none.outcome).toBe('no_data');
    expect(none.points.length).toBeGreaterThanOrEqual(90);
    expect(none.points.every((p) => p.values[0] === 0 && p.hasData[0] === false)).toBe(true);
    // One keyword with data makes the answer served; the other keeps hasData false.
    const mixed = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: ['meal planning', NO_DATA], timeframe: '90d', geo: '' }, routes[0]),
      'interestOverTime',
    );
    expect(mixed.outcome).toBe('served');
    expect(mixed.points.every((p) => p.hasData[0] === true && p.hasData[1] === false)).toBe(true);
    const map = as(
      await provider.fetch({ kind: 'interestByRegion', keywords: [NO_DATA], timeframe: '12m', geo: '', resolution: 'COUNTRY' }, routes[0]),
      'interestByRegion',
    );
    expect(map.outcome).toBe('no_data');

    const unknown = ['knitting robots', 'yak shaving', 'quantum soup', 'glacier tours', 'pocket lint', 'moss walls'].find(
      (t) => g.world.autocomplete(t).length === 0,
    )!;
    expect(as(await provider.fetch({ kind: 'autocomplete', term: unknown }, routes[0]), 'autocomplete')).toMatchObject({
      topics: [],
      outcome: 'empty',
    });

    // "tea + coffee" is searched as either: its volume is the sum of the two.
    expect(g.world.volume('tea + coffee', 10)).toBeCloseTo(g.world.volume('tea', 10) + g.world.volume('coffee', 10), 6);
    const or = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: ['tea + coffee', 'tea', 'coffee'], timeframe: '90d', geo: '' }, routes[0]),
      'interestOverTime',
    );
    const mean = (i: number) => or.points.reduce((s, p) => s + p.values[i]!, 0) / or.points.length;
    expect(Math.abs(mean(0) - (mean(1) + mean(2)))).toBeLessThan(3); // sampling noise and rounding

    // An OR-group of a phrase's refinements is a part of the phrase's searches: never above it.
    const request = modifierRequest('solar generator')!;
    for (const group of request.keywords.slice(1)) {
      for (const day of [0, 40, 200]) expect(g.world.volume(group, day)).toBeLessThan(g.world.volume('solar generator', day));
    }
    const families = as(
      await provider.fetch({ kind: 'interestOverTime', keywords: request.keywords, timeframe: '12m', geo: '' }, routes[0]),
      'interestOverTime',
    );
    const col = (i: number) => families.points.reduce((s, p) => s + p.values[i]!, 0) / families.points.length;
    for (let i = 1; i < request.keywords.length; i += 1) {
      expect(col(i)).toBeLessThan(col(0));
      // What Google's numbers imply is what the world holds, within sampling noise and rounding.
      expect(Math.abs(col(i) / col(0) - g.world.orGroupShare('solar generator', request.keywords[i]!))).toBeLessThan(0.5 / col(0) + 0.02);
    }
  });

  it('refuses more than five comparison items with a 400, which the client reports as refused', async () => {
    const six = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6'].map((k) => `${k} meal`);
    await expect(provider.fetch({ kind: 'interestOverTime', keywords: six, timeframe: '30d', geo: '' }, routes[0])).rejects.toBeInstanceOf(
      RefusedError,
    );
    expect(g.google.counts.get('bad-request-400')).toBe(1);
    expect(reports.at(-1)).toMatchObject({ kind: 'explore', outcome: 'refused' });
  });

  it('reads the trending RSS feed without a cookie: searches, approximate traffic, news titles and sources', async () => {
    const pagesBefore = g.google.counts.get('page') ?? 0;
    const feed = as(await provider.fetch({ kind: 'trendingFeed', geo: 'US' }, routes[1]), 'trendingFeed');
    expect(feed.provenance?.requests).toBe(1);
    expect(g.google.counts.get('page') ?? 0).toBe(pagesBefore);
    expect(feed.items).toHaveLength(20);
    for (const item of feed.items) {
      expect(item.query.length).toBeGreaterThan(3);
      expect(item.approxTraffic).toMatch(/^\d+K?\+$/);
      expect(item.published).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(item.news.length).toBeGreaterThanOrEqual(1);
      expect(item.news[0]).toMatchObject({
        title: expect.stringContaining(item.query),
        source: expect.any(String),
        url: expect.stringMatching(/^https:\/\//),
      });
    }
    expect(logOf(1).at(-1)).toMatchObject({ kind: 'trending_rss', cookie: false });
  });

  it('fetches a fresh cookie once when Google stops taking the one it kept; a second refusal in the same request is a block', async () => {
    as(await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]), 'autocomplete');
    g.google.revokeCookies();
    const again = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]);
    expect(again.provenance?.requests).toBe(3); // refused, the home page, asked again
    expect(
      logOf(2)
        .slice(-3)
        .map((r) => `${r.kind}:${r.status}`),
    ).toEqual(['autocomplete:429', 'home:200', 'autocomplete:200']);

    // Google taking no cookie at all: one fresh cookie, then a block.
    g.google.setLimits({ requestsPerMinute: 0, cookieLifetimeMs: 0 });
    const error = await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as { requests: number }).requests).toBe(3);
    expect(
      logOf(2)
        .slice(-3)
        .map((r) => `${r.kind}:${r.status}`),
    ).toEqual(['autocomplete:429', 'home:200', 'autocomplete:429']);
  });

  it("still reads yesterday's Google: a cookie set on the 429 is taken without a page, and explore widgets' served lists are served", async () => {
    g.google.setLimits({ requestsPerMinute: 0, embedMinGapMs: 0, yesterday: { cookieOn429: true, relatedLists: true } });
    as(await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[0]), 'autocomplete');
    g.google.revokeCookies(); // the route has a cookie, which Google no longer takes
    const pagesBefore = g.google.counts.get('home') ?? 0;
    const answer = as(
      await provider.fetch(
        { kind: 'explore', keywords: ['meal planning'], timeframe: '12m', geo: '', parts: ['relatedQueries'] },
        routes[0],
      ),
      'explore',
    );
    expect(answer.relatedQueries?.outcome).toBe('served');
    expect(answer.relatedQueries?.top.length).toBeGreaterThan(0);
    expect(answer.provenance?.requests).toBe(3); // explore refused with a cookie, explore again, the widget
    expect(g.google.counts.get('home') ?? 0).toBe(pagesBefore);
  });

  it('blocks an address past its budget of HTTPS requests (pages included) with a 302 to the sorry page carrying Retry-After, and a request during the block starts it over', async () => {
    g.google.resetClients();
    forgetGoogleCookies();
    g.google.setLimits({ requestsPerMinute: 4, windowMs: 60_000, blockMs: 1_000 });
    const client = g.proxies[0]!.egressAddress;
    // The home page and the first call, then two more calls: four requests, the budget.
    await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[0]);
    await provider.fetch({ kind: 'autocomplete', term: 'bagel' }, routes[0]);
    await provider.fetch({ kind: 'autocomplete', term: 'waffle' }, routes[0]);
    const blocked = await provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0]).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(RateLimitedError);
    expect(blocked).toMatchObject({ block: 'sorry_302', retryAfterMs: 1_000, requests: 1 }); // a block is never met with a new cookie
    expect(reports.at(-1)).toMatchObject({ kind: 'autocomplete', outcome: 'blocked' });
    expect(logOf(0).at(-1)).toMatchObject({ status: 302, refusal: 'sorry-302' });
    const [block] = g.google.blocks(client);
    expect(block).toMatchObject({ probes: [] });

    // Asking again early: refused, and the block now ends a full block after that request.
    await expect(provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0])).rejects.toBeInstanceOf(RateLimitedError);
    const [extended] = g.google.blocks(client);
    expect(extended!.probes).toHaveLength(1);
    expect(extended!.until).toBe(extended!.probes[0]! + 1_000);
    expect(extended!.until).toBeGreaterThan(block!.until);

    // Once the block has run out (Google's own clock), the address is served again.
    await new Promise((r) => setTimeout(r, Math.max(0, extended!.until - Date.now()) + 20));
    expect(as(await provider.fetch({ kind: 'autocomplete', term: 'crepe' }, routes[0]), 'autocomplete').outcome).toBe('served');
    expect(g.google.probesDuringBlocks(client)).toBe(1);
  });

  it('answers a block as a 302 to /sorry, a plain 429 page or a 403 "unusual traffic" page, each with Retry-After, and the client reads each as a block', async () => {
    const seen: Array<{ block: string; retryAfterMs: number | undefined; status: number | undefined }> = [];
    for (const answer of ['sorry-302', 'too-many-429', 'unusual-403'] as const) {
      g.google.resetClients();
      forgetGoogleCookies();
      // The home page and one call are the budget; the next call is blocked.
      g.google.setLimits({ requestsPerMinute: 2, windowMs: 60_000, blockMs: 5_000, blockAnswers: [answer] });
      await provider.fetch({ kind: 'autocomplete', term: 'pizza' }, routes[2]);
      const error = (await provider.fetch({ kind: 'autocomplete', term: 'bagel' }, routes[2]).catch((e: unknown) => e)) as RateLimitedError;
      expect(error).toBeInstanceOf(RateLimitedError);
      seen.push({ block: error.block, retryAfterMs: error.retryAfterMs, status: logOf(2).at(-1)?.status });
    }
    expect(seen).toEqual([
      { block: 'sorry_302', retryAfterMs: 5_000, status: 302 },
      { block: 'too_many_429', retryAfterMs: 5_000, status: 429 },
      { block: 'forbidden_403', retryAfterMs: 5_000, status: 403 },
    ]);
    // By default a client's blocks take the three answers in turn.
    g.google.resetClients();
    g.google.setLimits({ requestsPerMinute: 1, windowMs: 60_000, blockMs: 1 });
    const kinds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      await raw('/trends/'); // within the budget
      const blocked = await raw('/trends/'); // over it: a block, answered in turn
      kinds.push(`${blocked.status}${blocked.headers['retry-after'] ? '+retry-after' : ''}`);
      await new Promise((r) => setTimeout(r, 5)); // the block (1 ms) is over; a block empties the budget's window
    }
    expect(kinds).toEqual(['302+retry-after', '429+retry-after', '403+retry-after']);
  });
});
